import GatewayCore

/// The expand/contract rules every list of migrations must keep (docs/architecture.md,
/// "Schema changes across releases"); a test runs them over the gateway's migrations.
public enum MigrationRules {
    /// SQL that removes or tightens what an older release may still read or write: such a
    /// statement belongs only in a contract step.
    static let destructivePatterns = [
        "DROP TABLE", "DROP COLUMN", "RENAME", "SET NOT NULL", "ADD CONSTRAINT", "DROP FUNCTION",
        "DROP TRIGGER", "DROP INDEX", "DROP VIEW", "DROP DEFAULT",
    ]

    /// Whether `statement` removes or tightens something (an ALTER or DROP naming one of
    /// ``destructivePatterns``).
    public static func isDestructive(_ statement: String) -> Bool {
        let text = statement.uppercased().split(whereSeparator: \.isWhitespace).joined(separator: " ")
        guard text.hasPrefix("ALTER ") || text.hasPrefix("DROP ") else { return false }
        // A column's type changed: `ALTER COLUMN c TYPE t` or `... SET DATA TYPE t`.
        if text.contains("ALTER COLUMN"), text.contains(" TYPE ") { return true }
        return destructivePatterns.contains { text.contains($0) }
    }

    /// Every broken rule, one sentence each (empty: the list keeps them all).
    ///
    /// - versions strictly increase;
    /// - no floor lies above `binary` (a release cannot declare a schema fit only for a later one);
    /// - floors never go down (a schema keeps every earlier migration's change);
    /// - a statement that drops, renames or tightens appears only in a contract step, whose
    ///   floor lies above ``Migration/lastReader`` (the releases that still read the removed
    ///   shape must refuse the schema rather than break on it).
    public static func problems(in migrations: [Migration], binary: GatewayVersion) -> [String] {
        var problems: [String] = []
        var previous: Migration?
        for migration in migrations {
            let label = "migration \(migration.version) (\(migration.name))"
            if let previous {
                if migration.version <= previous.version {
                    problems.append("\(label) comes after migration \(previous.version): versions must strictly increase")
                }
                if migration.compatibleFrom < previous.compatibleFrom {
                    problems.append("\(label) declares floor \(migration.compatibleFrom), below migration \(previous.version)'s \(previous.compatibleFrom): floors never go down")
                }
            }
            if migration.compatibleFrom > binary {
                problems.append("\(label) declares floor \(migration.compatibleFrom), above this release \(binary)")
            }
            let destructive = migration.statements.filter(isDestructive)
            if let first = destructive.first {
                if let lastReader = migration.lastReader {
                    if migration.compatibleFrom <= lastReader {
                        problems.append("\(label) removes or tightens (\(summary(first))) but its floor \(migration.compatibleFrom) lets release \(lastReader), which still reads it, run on the schema: raise the floor above \(lastReader)")
                    }
                } else {
                    problems.append("\(label) removes or tightens (\(summary(first))) without being a contract step: ship the expand step first, then declare lastReader (the newest release that still reads it) and a floor above it")
                }
            }
            previous = migration
        }
        return problems
    }

    private static func summary(_ statement: String) -> String {
        let text = statement.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        return text.count > 80 ? String(text.prefix(77)) + "..." : text
    }
}
