import Foundation
import GatewayCore
import GatewayStore

// Interim: until the shared test support lands, a fresh database on the server named by
// OWNERSHIP_TEST_URL, with a stand-in for migration 0001.
private let counter = Counter()
private final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    func next() -> Int { lock.lock(); defer { lock.unlock() }; value += 1; return value }
}

func withOwnershipDatabase(_ body: (PostgresClient) async throws -> Void) async throws {
    try await withOwnershipDatabase(secondClient: false) { client, _ in try await body(client) }
}

func withOwnershipDatabase(secondClient: Bool, _ body: (PostgresClient, PostgresClient) async throws -> Void) async throws {
    let base = ProcessInfo.processInfo.environment["OWNERSHIP_TEST_URL"] ?? "postgresql://postgres@127.0.0.1:55432"
    let admin = try PostgresClient(configuration: PostgresConfiguration(connectionString: base + "/postgres"), logger: Logger(component: "test"))
    let name = "own_\(getpid())_\(counter.next())"
    try await admin.execute("CREATE DATABASE \(name)")
    let url = base + "/" + name
    let client = try PostgresClient(configuration: PostgresConfiguration(connectionString: url), logger: Logger(component: "test"))
    let second = secondClient ? try PostgresClient(configuration: PostgresConfiguration(connectionString: url), logger: Logger(component: "test")) : client
    do {
        for statement in splitStatements(OwnershipSchemaFixtures.stub0001 + "\n" + OwnershipMigration.sql) {
            try await client.execute(statement)
        }
        try await body(client, second)
    } catch {
        await client.shutdown()
        if secondClient { await second.shutdown() }
        throw error
    }
    await client.shutdown()
    if secondClient { await second.shutdown() }
    try await admin.execute("DROP DATABASE \(name)")
    await admin.shutdown()
}

enum OwnershipSchemaFixtures {
    static let stub0001 = """
        CREATE TABLE accounts (id text PRIMARY KEY);
        CREATE TABLE locations (id text PRIMARY KEY, account_id text NOT NULL REFERENCES accounts(id));
        CREATE TABLE readers (id text PRIMARY KEY, account_id text NOT NULL REFERENCES accounts(id), location_id text REFERENCES locations(id));
        CREATE TABLE sdk_sessions (id text PRIMARY KEY, account_id text NOT NULL REFERENCES accounts(id), lane_label text NOT NULL, lease_expires_at timestamptz NOT NULL);
        """

    static func insertAccount(_ client: PostgresClient, id: String, location: String) async throws {
        try await client.execute("INSERT INTO accounts (id) VALUES ($1)", [PostgresValue(id)])
        try await client.execute("INSERT INTO locations (id, account_id) VALUES ($1, $2)", [PostgresValue(location), PostgresValue(id)])
    }

    static func insertReader(_ client: PostgresClient, id: String, account: String, location: String) async throws {
        try await client.execute(
            "INSERT INTO readers (id, account_id, location_id) VALUES ($1, $2, $3)",
            [PostgresValue(id), PostgresValue(account), PostgresValue(location)]
        )
    }

    static func insertSession(_ client: PostgresClient, id: String, account: String, lane: String, leaseSeconds: Int) async throws {
        try await client.execute(
            "INSERT INTO sdk_sessions (id, account_id, lane_label, lease_expires_at) VALUES ($1, $2, $3, now() + make_interval(secs => $4))",
            [PostgresValue(id), PostgresValue(account), PostgresValue(lane), PostgresValue(leaseSeconds)]
        )
    }

    static func expireSession(_ client: PostgresClient, id: String) async throws {
        try await client.execute("UPDATE sdk_sessions SET lease_expires_at = now() - interval '1 second' WHERE id = $1", [PostgresValue(id)])
    }
}

/// Splits a script at semicolons that end a line outside dollar-quoted bodies.
func splitStatements(_ script: String) -> [String] {
    var statements: [String] = []
    var current = ""
    var inBody = false
    for line in script.split(separator: "\n", omittingEmptySubsequences: false) {
        if line.trimmingCharacters(in: .whitespaces).hasPrefix("--") { continue }
        current += line + "\n"
        if line.components(separatedBy: "$$").count % 2 == 0 { inBody.toggle() }
        if !inBody, line.trimmingCharacters(in: .whitespaces).hasSuffix(";") {
            statements.append(current)
            current = ""
        }
    }
    if !current.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { statements.append(current) }
    return statements
}
