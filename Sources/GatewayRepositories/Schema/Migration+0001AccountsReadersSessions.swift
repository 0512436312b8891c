import GatewayCore
import GatewayPostgres

extension Migration {
    /// Accounts, their locations and readers, point-of-sale SDK sessions and
    /// connection tokens. Identifiers are text (prefixed ids made by the
    /// gateway, `tmr_…`, `tml_…`); secrets are stored only as SHA-256 hashes.
    static let v0001AccountsReadersSessions = Migration(
        version: 1,
        name: "accounts, locations, readers, sdk sessions, connection tokens",
        compatibleFrom: GatewayVersion(0, 1, 0),
        statements: [
            """
            CREATE TABLE accounts (
                id text PRIMARY KEY,
                name text NOT NULL,
                secret_key_sha256 bytea NOT NULL UNIQUE CHECK (octet_length(secret_key_sha256) = 32),
                created_at timestamptz NOT NULL DEFAULT now()
            )
            """,
            """
            CREATE TABLE locations (
                id text PRIMARY KEY,
                account_id text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
                display_name text NOT NULL,
                address_line1 text,
                address_line2 text,
                city text,
                state text,
                postal_code text,
                country text,
                created_at timestamptz NOT NULL DEFAULT now()
            )
            """,
            "CREATE INDEX locations_account_idx ON locations (account_id)",
            """
            CREATE TABLE readers (
                id text PRIMARY KEY,
                account_id text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
                serial_number text NOT NULL UNIQUE,
                label text,
                device_type text NOT NULL,
                software_version text,
                location_id text REFERENCES locations (id) ON DELETE SET NULL,
                status text NOT NULL DEFAULT 'offline' CHECK (status IN ('online', 'offline')),
                last_seen_at timestamptz,
                ip_address inet,
                registered_at timestamptz NOT NULL DEFAULT now()
            )
            """,
            "CREATE INDEX readers_account_idx ON readers (account_id)",
            "CREATE INDEX readers_location_idx ON readers (location_id)",
            """
            CREATE TABLE sdk_sessions (
                id text PRIMARY KEY,
                account_id text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
                pos_device_id text NOT NULL,
                lane_label text,
                node_id text NOT NULL,
                lease_expires_at timestamptz NOT NULL,
                resume_token_sha256 bytea,
                created_at timestamptz NOT NULL DEFAULT now(),
                closed_at timestamptz
            )
            """,
            "CREATE INDEX sdk_sessions_open_account_idx ON sdk_sessions (account_id) WHERE closed_at IS NULL",
            "CREATE INDEX sdk_sessions_open_node_idx ON sdk_sessions (node_id) WHERE closed_at IS NULL",
            "CREATE UNIQUE INDEX sdk_sessions_resume_token_idx ON sdk_sessions (resume_token_sha256) WHERE resume_token_sha256 IS NOT NULL",
            """
            CREATE TABLE connection_tokens (
                token_sha256 bytea PRIMARY KEY,
                account_id text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
                location_id text REFERENCES locations (id) ON DELETE CASCADE,
                expires_at timestamptz NOT NULL,
                created_at timestamptz NOT NULL DEFAULT now()
            )
            """,
            "CREATE INDEX connection_tokens_account_idx ON connection_tokens (account_id)",
            "CREATE INDEX connection_tokens_location_idx ON connection_tokens (location_id)",
            "CREATE INDEX connection_tokens_expires_idx ON connection_tokens (expires_at)",
        ]
    )
}
