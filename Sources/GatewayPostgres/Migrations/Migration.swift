/// One versioned schema change, embedded in the binary (no resource files).
///
/// Each migration's statements run in order inside the start-up transaction;
/// one statement per string (bound parameters are not available here, and
/// libpq's pipeline mode runs one statement per message).
public struct Migration: Sendable {
    /// Strictly increasing, never reused; the database records it.
    public let version: Int
    /// A few words saying what the migration does.
    public let name: String
    public let statements: [String]

    public init(version: Int, name: String, statements: [String]) {
        self.version = version
        self.name = name
        self.statements = statements
    }
}
