import GatewayPostgres

/// The `accounts` table: the tenants secret keys belong to (keys are checked in ``ApiKeyStore``).
public struct AccountStore: Sendable {
    public let client: PostgresClient

    public init(client: PostgresClient) { self.client = client }

    /// Creates an account and returns its id and secret key (shown once).
    public func createAccount(name: String) async throws(StoreError) -> (id: String, secretKey: String) {
        try await Accounts.create(name: name, client: client)
    }

    public func accountCount() async throws(StoreError) -> Int {
        try await client.query("SELECT count(*) AS n FROM accounts").first?.decode(Int.self, "n") ?? 0
    }
}
