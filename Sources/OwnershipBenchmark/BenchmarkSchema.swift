import GatewayStore

/// The schema the benchmark needs (interim stand-in for migration 0001, then 0002).
enum BenchmarkSchema {
    static let stub0001 = """
        CREATE TABLE accounts (id text PRIMARY KEY);
        CREATE TABLE locations (id text PRIMARY KEY, account_id text NOT NULL REFERENCES accounts(id));
        CREATE TABLE readers (id text PRIMARY KEY, account_id text NOT NULL REFERENCES accounts(id), location_id text REFERENCES locations(id));
        CREATE TABLE sdk_sessions (id text PRIMARY KEY, account_id text NOT NULL REFERENCES accounts(id), lane_label text NOT NULL, lease_expires_at timestamptz NOT NULL);
        """

    static var statements: [String] { split(stub0001 + "\n" + OwnershipMigration.sql) }

    /// Splits a script at semicolons that end a line outside dollar-quoted bodies.
    static func split(_ script: String) -> [String] {
        var statements: [String] = []
        var current = ""
        var inBody = false
        for line in script.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.drop(while: { $0 == " " }).hasPrefix("--") { continue }
            current += line + "\n"
            if line.components(separatedBy: "$$").count % 2 == 0 { inBody.toggle() }
            if !inBody, line.last == ";" {
                statements.append(current)
                current = ""
            }
        }
        return statements
    }
}
