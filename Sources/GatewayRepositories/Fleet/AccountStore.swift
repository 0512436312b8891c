import GatewayPostgres

/// The `accounts` table: the tenant a secret key belongs to.
public struct AccountStore: Sendable {
    public let client: PostgresClient

    public init(client: PostgresClient) { self.client = client }

    /// The account whose secret key is `secretKey`, if any.
    public func account(secretKey: String) async throws(StoreError) -> String? {
        let rows = try await client.query("SELECT id FROM accounts WHERE secret_key_sha256 = \(Secrets.hashSQL(1))", [PostgresValue(secretKey)])
        return try rows.first?.decode(String.self, "id")
    }

    /// Creates an account and returns its id and secret key (shown once).
    public func createAccount(name: String) async throws(StoreError) -> (id: String, secretKey: String) {
        try await Accounts.create(name: name, client: client)
    }

    public func accountCount() async throws(StoreError) -> Int {
        try await client.query("SELECT count(*) AS n FROM accounts").first?.decode(Int.self, "n") ?? 0
    }
}
