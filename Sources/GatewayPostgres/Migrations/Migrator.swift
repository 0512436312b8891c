import GatewayCore

/// Applies a list of migrations at start-up (the gateway's schema is `Migrations.all` in
/// GatewayRepositories, whose `Migrator(client:logger:)` applies it).
///
/// Everything happens in one transaction that first takes a transaction-level
/// advisory lock, so when several replicas start at once they queue, and each
/// migration is applied exactly once and recorded in `schema_migrations`. A
/// database that records a version newer than this binary knows is refused
/// (an older binary must not run against a newer schema).
public struct Migrator: Sendable {
    /// The advisory lock key ("RGMIGRAT" in ASCII).
    public static let advisoryLockKey: Int64 = 0x5247_4D49_4752_4154

    /// What ``migrate()`` did.
    public struct Report: Sendable, Equatable {
        /// Versions applied by this call, oldest first.
        public var applied: [Int]
        /// The schema version afterwards.
        public var currentVersion: Int
    }

    let client: PostgresClient
    let migrations: [Migration]
    let logger: Logger

    public init(client: PostgresClient, migrations: [Migration], logger: Logger) {
        self.client = client
        self.migrations = migrations.sorted { $0.version < $1.version }
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
                let rows = try await transaction.query("SELECT version FROM schema_migrations ORDER BY version")
                var applied = Set<Int>()
                for row in rows { applied.insert(try row.decode(Int.self, "version")) }
                if let newest = applied.max(), newest > known {
                    throw StoreError(
                        .databaseTooNew,
                        "the database schema is at version \(newest) but this reader-gateway knows only up to \(known); run a newer reader-gateway (never downgrade against a migrated database)"
                    )
                }
                var report = Report(applied: [], currentVersion: applied.max() ?? 0)
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
                        "INSERT INTO schema_migrations (version, name) VALUES ($1, $2)",
                        [.init(migration.version), .init(migration.name)]
                    )
                    report.applied.append(migration.version)
                    report.currentVersion = migration.version
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
