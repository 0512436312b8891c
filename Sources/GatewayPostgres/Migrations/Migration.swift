import GatewayCore

/// One versioned schema change, embedded in the binary (no resource files).
///
/// Each migration's statements run in order inside the start-up transaction;
/// one statement per string (bound parameters are not available here, and
/// libpq's pipeline mode runs one statement per message).
///
/// Schema changes follow expand/contract (docs/architecture.md, "Schema changes across
/// releases"): an expand step only adds, and the release that ships it still runs beside the
/// release before it; a contract step (dropping or renaming a column or table, tightening a
/// constraint) ships a release after the code stopped reading what it removes, and says so in
/// ``lastReader``. ``MigrationRules`` checks both.
public struct Migration: Sendable {
    /// Strictly increasing, never reused; the database records it.
    public let version: Int
    /// A few words saying what the migration does.
    public let name: String
    /// The compatibility floor: the oldest release that runs correctly on the schema this
    /// migration leaves. A binary that does not know this migration starts against it only
    /// when its own version is at or above the floor (recorded in `schema_migrations`).
    public let compatibleFrom: GatewayVersion
    /// For a contract step: the newest release whose code still reads or writes what the step
    /// removes or tightens (the floor must lie above it). Nil for an expand step.
    public let lastReader: GatewayVersion?
    public let statements: [String]

    public init(version: Int, name: String, compatibleFrom: GatewayVersion, lastReader: GatewayVersion? = nil, statements: [String]) {
        self.version = version
        self.name = name
        self.compatibleFrom = compatibleFrom
        self.lastReader = lastReader
        self.statements = statements
    }
}
