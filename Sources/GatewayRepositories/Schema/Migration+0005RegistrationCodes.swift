import GatewayCore
import GatewayPostgres

extension Migration {
    /// Registration codes shown by unregistered readers, shared by every
    /// replica: the reader's link lives on one replica (`node_id`), the admin
    /// who types the code may call any other. A code is taken by deleting its
    /// row, so it is single use across the cluster.
    static let v0005RegistrationCodes = Migration(
        version: 5,
        name: "registration codes shared by the replicas",
        compatibleFrom: GatewayVersion(0, 1, 0),
        statements: [
            """
            CREATE TABLE registration_codes (
                code             text PRIMARY KEY CHECK (code ~ '^[0-9A-HJKMNP-TV-Z]{8}$'),
                serial_number    text NOT NULL,
                device_type      text NOT NULL,
                software_version text NOT NULL,
                node_id          text NOT NULL,
                expires_at       timestamptz NOT NULL
            )
            """,
            "CREATE INDEX registration_codes_expires_idx ON registration_codes (expires_at)",
        ]
    )
}
