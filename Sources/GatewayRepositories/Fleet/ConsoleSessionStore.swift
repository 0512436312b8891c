import Foundation
import GatewayPostgres

/// A fleet console session as a request's cookie finds it.
public struct ConsoleSessionRecord: Sendable, Hashable {
    public var accountID: String
    /// Must come back in `X-CSRF-Token` (HTTP) or `x-csrf-token` (call metadata) on every change.
    public var csrfToken: String
    public var expiresAt: Date
    /// The key the session signed in with (its scope applies); nil for a session a 0.1.0
    /// binary opened, which acts with the account key's scope.
    public var keyID: String?

    public init(accountID: String, csrfToken: String, expiresAt: Date, keyID: String?) {
        self.accountID = accountID
        self.csrfToken = csrfToken
        self.expiresAt = expiresAt
        self.keyID = keyID
    }
}

/// The `console_sessions` table: fleet console sign-ins.
public struct ConsoleSessionStore: Sendable {
    public let client: PostgresClient

    public init(client: PostgresClient) { self.client = client }

    /// Starts a console session signed in with `key` (looked up from the secret the browser
    /// sent, see ``ApiKeyStore/lookup(secret:now:)``): the session token (for the cookie; only
    /// its hash is stored) and the CSRF token. Expired sessions are deleted on the way.
    public func createConsoleSession(key: ApiKeyRecord, lifetime: Duration) async throws(StoreError) -> (token: String, record: ConsoleSessionRecord) {
        _ = try await client.execute("DELETE FROM console_sessions WHERE expires_at < now()", [])
        let token = Secrets.make("cs_", count: 43)
        let csrf = Secrets.make("csrf_", count: 32)
        let rows = try await client.query(
            """
            INSERT INTO console_sessions (token_sha256, account_id, csrf_token, expires_at, api_key_id)
            VALUES (\(Secrets.hashSQL(1)), $2, $3, now() + make_interval(secs => $4::double precision), $5)
            RETURNING expires_at
            """,
            [
                PostgresValue(token), PostgresValue(key.accountID), PostgresValue(csrf), PostgresValue(String(Double(lifetime.components.seconds))),
                PostgresValue(key.id),
            ]
        )
        let expires = try rows.first?.decode(Date.self, "expires_at") ?? Date()
        return (token, ConsoleSessionRecord(accountID: key.accountID, csrfToken: csrf, expiresAt: expires, keyID: key.id))
    }

    /// ``createConsoleSession(key:lifetime:)`` with `audit` (the sign-in) written in the
    /// session's insert statement.
    public func createConsoleSession(key: ApiKeyRecord, lifetime: Duration, audit: AuditEntry) async throws(StoreError) -> (token: String, record: ConsoleSessionRecord) {
        _ = try await client.execute("DELETE FROM console_sessions WHERE expires_at < now()", [])
        let token = Secrets.make("cs_", count: 43)
        let csrf = Secrets.make("csrf_", count: 32)
        let rows = try await client.query(
            """
            WITH created AS (
                INSERT INTO console_sessions (token_sha256, account_id, csrf_token, expires_at, api_key_id)
                VALUES (\(Secrets.hashSQL(1)), $2, $3, now() + make_interval(secs => $4::double precision), $5)
                RETURNING expires_at
            ), audited AS (
                \(AuditStore.insert(from: "created", parametersFrom: 6))
            )
            SELECT expires_at FROM created
            """,
            [
                PostgresValue(token), PostgresValue(key.accountID), PostgresValue(csrf), PostgresValue(String(Double(lifetime.components.seconds))),
                PostgresValue(key.id),
            ] + AuditStore.parameters(audit)
        )
        let expires = try rows.first?.decode(Date.self, "expires_at") ?? Date()
        return (token, ConsoleSessionRecord(accountID: key.accountID, csrfToken: csrf, expiresAt: expires, keyID: key.id))
    }

    /// ``deleteConsoleSession(token:)`` with `audit` (the sign-out) written in the delete's
    /// statement when it deletes a session.
    public func deleteConsoleSession(token: String, audit: AuditEntry) async throws(StoreError) -> Bool {
        let rows = try await client.query(
            """
            WITH deleted AS (
                DELETE FROM console_sessions WHERE token_sha256 = \(Secrets.hashSQL(1)) RETURNING account_id
            ), audited AS (
                \(AuditStore.insert(from: "deleted", parametersFrom: 2))
            )
            SELECT count(*)::bigint AS deleted FROM deleted
            """,
            [PostgresValue(token)] + AuditStore.parameters(audit)
        )
        return try rows.first?.decode(Int64.self, "deleted") ?? 0 > 0
    }

    /// The live (unexpired) console session of a cookie's token, if any.
    public func consoleSession(token: String) async throws(StoreError) -> ConsoleSessionRecord? {
        let rows = try await client.query(
            "SELECT account_id, csrf_token, expires_at, api_key_id FROM console_sessions WHERE token_sha256 = \(Secrets.hashSQL(1)) AND expires_at > now()",
            [PostgresValue(token)]
        )
        guard let row = rows.first else { return nil }
        return ConsoleSessionRecord(
            accountID: try row.decode(String.self, "account_id"),
            csrfToken: try row.decode(String.self, "csrf_token"),
            expiresAt: try row.decode(Date.self, "expires_at"),
            keyID: try row.decode(String?.self, "api_key_id")
        )
    }

    /// Ends a console session (sign-out); true when it existed.
    public func deleteConsoleSession(token: String) async throws(StoreError) -> Bool {
        try await client.execute("DELETE FROM console_sessions WHERE token_sha256 = \(Secrets.hashSQL(1))", [PostgresValue(token)]) > 0
    }
}
