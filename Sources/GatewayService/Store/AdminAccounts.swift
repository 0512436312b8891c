import GatewayPostgres
import GatewayRepositories

/// The account a fleet admin call with a secret key acts for: PostgreSQL's ``AccountStore``
/// in the gateway, an in-memory table in the services' own tests.
protocol AdminAccounts: Sendable {
    /// The account whose secret key is `secretKey` (nil: no account has it).
    func account(secretKey: String) async throws(StoreError) -> String?
}

/// The fleet console session whose cookie came with a call's WebSocket upgrade:
/// PostgreSQL's ``ConsoleSessionStore`` in the gateway, an in-memory table in the services'
/// own tests.
protocol ConsoleSessionRepository: Sendable {
    /// The console session whose token is `token` (nil: unknown or expired).
    func consoleSession(token: String) async throws(StoreError) -> ConsoleSessionRecord?
}

extension AccountStore: AdminAccounts {}

extension ConsoleSessionStore: ConsoleSessionRepository {}
