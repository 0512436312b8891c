import GatewayCore
import GatewayPostgres

extension Migration {
    /// Locations' software install windows: when the catalog's updates become required for the
    /// readers at a location (an update whose required_at falls outside the window becomes
    /// required at its next opening). Minutes after local midnight, a fixed UTC offset; one row
    /// per location that has a window, gone with the location.
    static let v0011InstallWindows = Migration(
        version: 11,
        name: "location install windows",
        compatibleFrom: GatewayVersion(0, 1, 0),
        statements: [
            """
            CREATE TABLE location_install_windows (
                location_id        text PRIMARY KEY REFERENCES locations (id) ON DELETE CASCADE,
                start_minute       integer NOT NULL CHECK (start_minute BETWEEN 0 AND 1439),
                end_minute         integer NOT NULL CHECK (end_minute BETWEEN 0 AND 1439 AND end_minute <> start_minute),
                utc_offset_minutes integer NOT NULL CHECK (utc_offset_minutes BETWEEN -720 AND 840),
                updated_at         timestamptz NOT NULL DEFAULT now()
            )
            """,
        ]
    )
}
