import GatewayCore
import GatewayPostgres
import GatewayRepositories

/// The development account a fresh embedded gateway creates on its first run.
public struct DevelopmentAccount: Sendable {
    public var accountID: String
    /// Shown once, at creation; only its hash is stored.
    public var secretKey: String

    /// Creates the development account when the database has no account yet;
    /// nil when accounts already exist (the secret is never shown again).
    public static func createIfFirstRun(client: PostgresClient) async throws(StoreError) -> DevelopmentAccount? {
        let accounts = AccountStore(client: client)
        guard try await accounts.accountCount() == 0 else { return nil }
        let created = try await accounts.createAccount(name: "development")
        return DevelopmentAccount(accountID: created.id, secretKey: created.secretKey)
    }

    /// Creates an account (tests, gatewayctl's bootstrap) and returns its id and secret key.
    public static func create(name: String, client: PostgresClient) async throws(StoreError) -> DevelopmentAccount {
        let created = try await AccountStore(client: client).createAccount(name: name)
        return DevelopmentAccount(accountID: created.id, secretKey: created.secretKey)
    }
}
