import Foundation
import GatewayPostgres

/// A fleet console session as a request's cookie finds it.
public struct ConsoleSessionRecord: Sendable, Hashable {
    public var accountID: String
    /// Must come back in `X-CSRF-Token` (HTTP) or `x-csrf-token` (call metadata) on every change.
    public var csrfToken: String
    public var expiresAt: Date
}

/// The `console_sessions` table: fleet console sign-ins.
public struct ConsoleSessionStore: Sendable {
    public let client: PostgresClient

    public init(client: PostgresClient) { self.client = client }

    /// Starts a console session for the account whose secret key is `secretKey`: the session
    /// token (for the cookie; only its hash is stored) and the CSRF token. Nil when no account
    /// has that key. Expired sessions are deleted on the way.
    public func createConsoleSession(secretKey: String, lifetime: Duration) async throws(StoreError) -> (token: String, record: ConsoleSessionRecord)? {
        guard let account = try await AccountStore(client: client).account(secretKey: secretKey) else { return nil }
        _ = try await client.execute("DELETE FROM console_sessions WHERE expires_at < now()", [])
        let token = Secrets.make("cs_", count: 43)
        let csrf = Secrets.make("csrf_", count: 32)
        let rows = try await client.query(
            """
            INSERT INTO console_sessions (token_sha256, account_id, csrf_token, expires_at)
            VALUES (\(Secrets.hashSQL(1)), $2, $3, now() + make_interval(secs => $4::double precision))
            RETURNING expires_at
            """,
            [PostgresValue(token), PostgresValue(account), PostgresValue(csrf), PostgresValue(String(Double(lifetime.components.seconds)))]
        )
        let expires = try rows.first?.decode(Date.self, "expires_at") ?? Date()
        return (token, ConsoleSessionRecord(accountID: account, csrfToken: csrf, expiresAt: expires))
    }

    /// The live (unexpired) console session of a cookie's token, if any.
    public func consoleSession(token: String) async throws(StoreError) -> ConsoleSessionRecord? {
        let rows = try await client.query(
            "SELECT account_id, csrf_token, expires_at FROM console_sessions WHERE token_sha256 = \(Secrets.hashSQL(1)) AND expires_at > now()",
            [PostgresValue(token)]
        )
        guard let row = rows.first else { return nil }
        return ConsoleSessionRecord(
            accountID: try row.decode(String.self, "account_id"),
            csrfToken: try row.decode(String.self, "csrf_token"),
            expiresAt: try row.decode(Date.self, "expires_at")
        )
    }

    /// Ends a console session (sign-out); true when it existed.
    public func deleteConsoleSession(token: String) async throws(StoreError) -> Bool {
        try await client.execute("DELETE FROM console_sessions WHERE token_sha256 = \(Secrets.hashSQL(1))", [PostgresValue(token)]) > 0
    }
}
