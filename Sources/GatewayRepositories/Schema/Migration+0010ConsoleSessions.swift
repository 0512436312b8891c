import GatewayCore
import GatewayPostgres

extension Migration {
    /// Fleet console sessions: a browser signs in with an account's secret key and gets a
    /// session token in an HttpOnly cookie; only the token's SHA-256 is stored, so any
    /// replica recognises the cookie and a copy of the table reveals no usable cookie. The
    /// CSRF token is handed to the signed-in page and must come back on every change it asks
    /// for. A row stops working at `expires_at` (and is deleted by the next sign-in after
    /// that); signing out deletes it.
    static let v0010ConsoleSessions = Migration(
        version: 10,
        name: "fleet console sessions",
        compatibleFrom: GatewayVersion(0, 1, 0),
        statements: [
            """
            CREATE TABLE console_sessions (
                token_sha256 bytea PRIMARY KEY CHECK (octet_length(token_sha256) = 32),
                account_id   text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
                csrf_token   text NOT NULL,
                created_at   timestamptz NOT NULL DEFAULT now(),
                expires_at   timestamptz NOT NULL
            )
            """,
            "CREATE INDEX console_sessions_expires_idx ON console_sessions (expires_at)",
        ]
    )
}
