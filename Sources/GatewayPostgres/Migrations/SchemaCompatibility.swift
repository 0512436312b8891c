import GatewayCore

/// Whether a binary may run on a database migrated by a newer release: the rule of the
/// compatibility window, pure (``Migrator`` feeds it the rows of `schema_migrations` it does
/// not know).
///
/// The schema a database is at is compatible from the highest floor among the migrations the
/// binary does not know (floors never go down, so that is the last one's). A migration recorded
/// without a floor was applied by a build from before floors existed, which no release can
/// judge: refused.
public struct SchemaCompatibility: Sendable, Equatable {
    /// One applied migration this binary does not know, as `schema_migrations` records it.
    public struct Applied: Sendable, Equatable {
        public var version: Int
        /// The floor as recorded (text; nil when the applying build recorded none).
        public var compatibleFrom: String?
        /// The release that applied it (nil when not recorded).
        public var appliedBy: String?

        public init(version: Int, compatibleFrom: String?, appliedBy: String?) {
            self.version = version
            self.compatibleFrom = compatibleFrom
            self.appliedBy = appliedBy
        }
    }

    public let release: GatewayVersion
    public let knownVersion: Int
    public let unknown: [Applied]

    public init(release: GatewayVersion, knownVersion: Int, unknown: [Applied]) {
        self.release = release
        self.knownVersion = knownVersion
        self.unknown = unknown.sorted { $0.version < $1.version }
    }

    /// The schema's floor: the highest among the unknown migrations (nil when one has none
    /// that parses).
    public var floor: GatewayVersion? {
        var highest: GatewayVersion?
        for applied in unknown {
            guard let text = applied.compatibleFrom, let floor = GatewayVersion(text) else { return nil }
            highest = max(highest ?? floor, floor)
        }
        return highest
    }

    /// The newest release that migrated the database, as recorded.
    var migratedBy: String {
        unknown.last?.appliedBy.map { "reader-gateway \($0)" } ?? "a newer reader-gateway"
    }

    var newest: Int { unknown.last?.version ?? knownVersion }

    /// Why the binary must not start (nil: it may).
    public var refusal: String? {
        guard !unknown.isEmpty else { return nil }
        guard let floor else {
            return "the database schema is at version \(newest), migrated by \(migratedBy), which recorded no compatibility floor; this reader-gateway \(release) knows the schema only up to \(knownVersion) and cannot tell whether it runs on it: run \(migratedBy) or newer"
        }
        guard release < floor else { return nil }
        return "the database schema is at version \(newest), migrated by \(migratedBy), which declares it compatible from \(floor); this reader-gateway is \(release) (schema up to \(knownVersion)), older than that floor: run reader-gateway \(floor) or newer against this database (a rollback below the floor needs the database restored from before the migration)"
    }

    /// The start-up notice when the binary may run on the newer schema.
    public var acceptance: String {
        "the database schema is newer than this reader-gateway knows (migrated by \(migratedBy)); it declares releases from \(floor.map(String.init(describing:)) ?? "-") compatible, this one is \(release): running on it"
    }
}
