import GatewayPostgres

/// The fleet's tables on one PostgreSQL client, one store per aggregate:
/// accounts, locations, readers, registration codes, connection tokens, SDK sessions and
/// console sessions, and failed authentications. Every query that takes an id from a peer also takes the caller's
/// account, so another account's ids read exactly like unknown ones. The fleet view, a read
/// across readers, ownership and sessions, is here too (``fleet(account:location:)``).
public struct GatewayDatabase: Sendable {
    public let client: PostgresClient
    public let accounts: AccountStore
    public let apiKeys: ApiKeyStore
    public let locations: LocationStore
    public let readers: ReaderStore
    public let registrationCodes: RegistrationCodeStore
    public let connectionTokens: ConnectionTokenStore
    public let sessions: SessionStore
    public let consoleSessions: ConsoleSessionStore
    /// The audit log (migration 23).
    public let audit: AuditStore
    /// Failed authentications per source address and account (migration 24).
    public let authFailures: AuthFailureBucketStore

    public init(client: PostgresClient) {
        self.client = client
        accounts = AccountStore(client: client)
        audit = AuditStore(client: client)
        apiKeys = ApiKeyStore(client: client)
        locations = LocationStore(client: client)
        readers = ReaderStore(client: client)
        registrationCodes = RegistrationCodeStore(client: client)
        connectionTokens = ConnectionTokenStore(client: client)
        sessions = SessionStore(client: client)
        consoleSessions = ConsoleSessionStore(client: client)
        authFailures = AuthFailureBucketStore(client: client)
    }
}
