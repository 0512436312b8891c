import GatewayCore
import GatewayPostgres

extension Migration {
    /// Reader credentials (GatewayService): a reader registered by code presents
    /// the credential it received at registration; only its SHA-256 is stored.
    static let v0003ReaderCredentials = Migration(
        version: 3,
        name: "reader credentials",
        compatibleFrom: GatewayVersion(0, 1, 0),
        statements: [
            "ALTER TABLE readers ADD COLUMN credential_sha256 bytea UNIQUE CHECK (octet_length(credential_sha256) = 32)",
        ]
    )
}
