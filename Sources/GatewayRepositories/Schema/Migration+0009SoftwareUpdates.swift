import GatewayCore
import GatewayPostgres

extension Migration {
    /// Software updates: each account's catalog per device type, and per reader what the
    /// update rules need between connects (when it last ran its location's latest version,
    /// its last battery level). Version 8 belongs to another change; the migrator applies
    /// whatever versions are missing, in order, so the gap is harmless.
    static let v0009SoftwareUpdates = Migration(
        version: 9,
        name: "software updates: catalog per device type, reader update status",
        compatibleFrom: GatewayVersion(0, 1, 0),
        statements: [
            """
            CREATE TABLE software_updates (
                account_id text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
                device_type text NOT NULL,
                version text NOT NULL,
                components text NOT NULL DEFAULT '',
                duration_estimate text NOT NULL DEFAULT 'unspecified',
                required_at timestamptz,
                added_at timestamptz NOT NULL DEFAULT now(),
                PRIMARY KEY (account_id, device_type, version)
            )
            """,
            """
            CREATE TABLE reader_update_status (
                reader_id text PRIMARY KEY REFERENCES readers (id) ON DELETE CASCADE,
                ran_latest_location_id text,
                ran_latest_at timestamptz,
                battery_level real,
                battery_reported_at timestamptz
            )
            """,
        ]
    )
}
