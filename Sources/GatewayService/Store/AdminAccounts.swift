import GatewayPostgres
import GatewayRepositories

/// The account a fleet admin call acts for: found by its secret key, or by the fleet
/// console session whose cookie came with the call's WebSocket upgrade. PostgreSQL's
/// ``GatewayDatabase`` in the gateway, an in-memory table in the services' own tests.
protocol AdminAccounts: Sendable {
    /// The account whose secret key is `secretKey` (nil: no account has it).
    func account(secretKey: String) async throws(StoreError) -> String?
    /// The console session whose token is `token` (nil: unknown or expired).
    func consoleSession(token: String) async throws(StoreError) -> ConsoleSessionRecord?
}

extension GatewayDatabase: AdminAccounts {}
