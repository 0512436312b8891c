import GatewayCore
import GatewayPostgres

extension Migration {
    /// Several secret keys per account, each with a scope, rolled with an overlap.
    ///
    /// - `api_keys`: one row per key: its name, its permission per resource
    ///   (`permissions`, `resource=level` pairs, e.g. `readers=read,tokens=write`; a resource
    ///   left out has no access), the locations it is limited to (`location_ids`, NULL for
    ///   every location), an optional expiry, when it was created, last used (to the minute),
    ///   rolled and revoked. Only the SHA-256 of its secret is stored, as for `accounts`.
    /// - `api_key_previous_secrets`: the secrets a roll replaced, each working until its
    ///   `valid_until` and kept after it, so the gateway can say the secret was rolled (and
    ///   when) instead of calling it unknown.
    /// - Each account's key of `accounts.secret_key_sha256` becomes a key with every
    ///   permission (`account_key`): copied here, and adopted on its first use for an
    ///   account created since (accounts are created in `accounts` alone, as 0.1.0 does). Rolling or revoking it also changes
    ///   `accounts.secret_key_sha256` (to the new secret's hash, or to one of no secret), so a
    ///   0.1.0 binary, which reads only that column, follows the change.
    /// - `console_sessions.api_key_id`: the key a console session signed in with (its
    ///   permissions and locations apply; revoking the key ends the session). NULL for
    ///   sessions a 0.1.0 binary opened, which act with the account key's scope.
    ///
    /// An expand step with floor 0.1.0: tables and a nullable column are added, nothing a
    /// 0.1.0 binary reads or writes changes shape.
    static let v0022ApiKeys = Migration(
        version: 22,
        name: "secret keys: several per account, scoped, rolled with an overlap",
        compatibleFrom: GatewayVersion(0, 1, 0),
        statements: [
            """
            CREATE TABLE api_keys (
                id             text PRIMARY KEY,
                account_id     text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
                name           text NOT NULL,
                secret_sha256  bytea NOT NULL UNIQUE CHECK (octet_length(secret_sha256) = 32),
                secret_last4   text NOT NULL DEFAULT '',
                permissions    text NOT NULL,
                location_ids   text[],
                account_key    boolean NOT NULL DEFAULT false,
                expires_at     timestamptz,
                created_at     timestamptz NOT NULL DEFAULT now(),
                last_used_at   timestamptz,
                rolled_at      timestamptz,
                revoked_at     timestamptz
            )
            """,
            "CREATE INDEX api_keys_account_idx ON api_keys (account_id, created_at)",
            "CREATE UNIQUE INDEX api_keys_one_account_key_idx ON api_keys (account_id) WHERE account_key",
            """
            CREATE TABLE api_key_previous_secrets (
                secret_sha256 bytea PRIMARY KEY CHECK (octet_length(secret_sha256) = 32),
                key_id        text NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
                retired_at    timestamptz NOT NULL,
                valid_until   timestamptz NOT NULL
            )
            """,
            "CREATE INDEX api_key_previous_secrets_key_idx ON api_key_previous_secrets (key_id, valid_until)",
            """
            INSERT INTO api_keys (id, account_id, name, secret_sha256, permissions, account_key, created_at)
            SELECT 'key_' || substr(md5(a.id), 1, 16), a.id, 'account key', a.secret_key_sha256, '\(accountKeyPermissions)', true, a.created_at
            FROM accounts a
            """,
            "ALTER TABLE console_sessions ADD COLUMN api_key_id text REFERENCES api_keys (id) ON DELETE CASCADE",
        ]
    )

    /// Every resource at write: the scope of an account's first key.
    public static let accountKeyPermissions = "locations=write,readers=write,ownership=write,tokens=write,updates=write,webhooks=write,events=write,keys=write"
}
