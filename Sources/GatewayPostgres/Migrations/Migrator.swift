import GatewayCore

/// Applies a list of migrations at start-up (the gateway's schema is `Migrations.all` in
/// GatewayRepositories, whose `Migrator(client:logger:)` applies it).
///
/// Everything happens in one transaction that first takes a transaction-level
/// advisory lock, so when several replicas start at once they queue, and each
/// migration is applied exactly once and recorded in `schema_migrations` with its
/// compatibility floor and the release that applied it.
///
/// A database that records migrations this binary does not know (a newer release migrated
/// it) is accepted when this binary's release is at or above the highest floor among them
/// (``SchemaCompatibility``): the newer release declared that older binaries still run on
/// it, which is what lets a rollout run two releases side by side and roll back without a
/// restore. Otherwise it is refused with a message naming both releases.
public struct Migrator: Sendable {
    /// The advisory lock key ("RGMIGRAT" in ASCII).
    public static let advisoryLockKey: Int64 = 0x5247_4D49_4752_4154

    /// What ``migrate()`` did.
    public struct Report: Sendable, Equatable {
        /// Versions applied by this call, oldest first.
        public var applied: [Int]
        /// The schema version afterwards.
        public var currentVersion: Int
        /// The newest migration this binary knows; below ``currentVersion`` when a newer
        /// release migrated the database and declared this one compatible.
        public var knownVersion: Int
    }

    let client: PostgresClient
    let migrations: [Migration]
    let logger: Logger
    /// This binary's release: recorded with each migration it applies, and compared with the
    /// floors of migrations it does not know.
    let release: GatewayVersion

    public init(client: PostgresClient, migrations: [Migration], release: GatewayVersion = .current, logger: Logger) {
        self.client = client
        self.migrations = migrations.sorted { $0.version < $1.version }
        self.release = release
        self.logger = logger
    }

    @discardableResult
    public func migrate() async throws(StoreError) -> Report {
        let known = migrations.last?.version ?? 0
        do {
            let report = try await client.withTransaction { transaction in
                try await transaction.execute("SELECT pg_advisory_xact_lock($1)", [.init(Self.advisoryLockKey)])
                // "relation already exists, skipping" on every start is not news.
                try await transaction.execute("SET LOCAL client_min_messages = warning")
                try await transaction.execute("""
                    CREATE TABLE IF NOT EXISTS schema_migrations (
                        version integer PRIMARY KEY,
                        name text NOT NULL,
                        applied_at timestamptz NOT NULL DEFAULT now()
                    )
                    """)
                // Added by 0.1.0; a table created by an earlier build gains them here.
                try await transaction.execute("ALTER TABLE schema_migrations ADD COLUMN IF NOT EXISTS compatible_from text")
                try await transaction.execute("ALTER TABLE schema_migrations ADD COLUMN IF NOT EXISTS applied_by text")
                let rows = try await transaction.query("SELECT version, compatible_from, applied_by FROM schema_migrations ORDER BY version")
                var applied = Set<Int>()
                var unknown: [SchemaCompatibility.Applied] = []
                for row in rows {
                    let version = try row.decode(Int.self, "version")
                    applied.insert(version)
                    if version > known {
                        unknown.append(.init(
                            version: version, compatibleFrom: try row.decode(String?.self, "compatible_from"),
                            appliedBy: try row.decode(String?.self, "applied_by")
                        ))
                    }
                }
                if !unknown.isEmpty {
                    let verdict = SchemaCompatibility(release: release, knownVersion: known, unknown: unknown)
                    if let refusal = verdict.refusal { throw StoreError(.databaseTooNew, refusal) }
                    let missing = migrations.map(\.version).filter { !applied.contains($0) }
                    guard missing.isEmpty else {
                        throw StoreError(
                            .databaseTooNew,
                            "the database records migrations newer than this reader-gateway \(release) knows but lacks \(missing.map(String.init).joined(separator: ",")), which it needs; the schema was not built by this line of releases: check --database-url"
                        )
                    }
                    logger.notice(verdict.acceptance, [
                        "schema": unknown.last?.version ?? known, "known": known, "floor": verdict.floor.map(String.init(describing:)) ?? "-",
                        "release": release.description,
                    ])
                }
                var report = Report(applied: [], currentVersion: applied.max() ?? 0, knownVersion: known)
                for migration in migrations where !applied.contains(migration.version) {
                    for statement in migration.statements {
                        do throws(StoreError) {
                            try await transaction.execute(statement)
                        } catch {
                            throw StoreError(
                                .migrationFailed,
                                "migration \(migration.version) (\(migration.name)) failed and was rolled back: \(error.message)",
                                sqlState: error.sqlState, underlying: error.underlying
                            )
                        }
                    }
                    try await transaction.execute(
                        "INSERT INTO schema_migrations (version, name, compatible_from, applied_by) VALUES ($1, $2, $3, $4)",
                        [.init(migration.version), .init(migration.name), .init(migration.compatibleFrom.description), .init(release.description)]
                    )
                    report.applied.append(migration.version)
                    report.currentVersion = max(report.currentVersion, migration.version)
                }
                return report
            }
            if report.applied.isEmpty {
                logger.info("database schema is up to date", ["version": report.currentVersion])
            } else {
                logger.info("applied database migrations", [
                    "applied": report.applied.map(String.init).joined(separator: ","), "version": report.currentVersion,
                ])
            }
            return report
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError(.migrationFailed, "migrating the database failed: \(error)")
        }
    }
}
