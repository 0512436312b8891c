import GatewayPostgres
import GatewayWire

/// A registration code some replica's reader shows, as `registration_codes` holds it.
public struct PendingCodeRecord: Sendable {
    public var serial: String
    public var deviceType: ReaderGatewayV1.DeviceType
    public var softwareVersion: String
    /// The node whose link shows the code.
    public var node: String
}

/// The `registration_codes` table: codes readers without a credential show, single use
/// across the cluster.
public struct RegistrationCodeStore: Sendable {
    public let client: PostgresClient

    public init(client: PostgresClient) { self.client = client }

    /// Records a code a reader on `node` shows (replacing that reader's older code).
    public func insertRegistrationCode(
        _ code: String, replacing old: String?, serial: String, deviceType: ReaderGatewayV1.DeviceType,
        softwareVersion: String, node: String, lifetime: Duration
    ) async throws(StoreError) {
        try await client.execute(
            """
            WITH gone AS (DELETE FROM registration_codes WHERE code = $7)
            INSERT INTO registration_codes (code, serial_number, device_type, software_version, node_id, expires_at)
            VALUES ($1, $2, $3, $4, $5, now() + make_interval(secs => $6::double precision))
            """,
            [
                PostgresValue(code), PostgresValue(serial), PostgresValue(ReaderStore.deviceTypeName(deviceType)),
                PostgresValue(softwareVersion), PostgresValue(node), PostgresValue(lifetime.seconds), PostgresValue(old ?? ""),
            ]
        )
    }

    /// Takes a live code (single use across the cluster): the row is deleted.
    public func takeRegistrationCode(_ code: String) async throws(StoreError) -> PendingCodeRecord? {
        let rows = try await client.query(
            """
            DELETE FROM registration_codes WHERE code = $1 AND expires_at > now()
            RETURNING serial_number, device_type, software_version, node_id
            """,
            [PostgresValue(code)]
        )
        guard let row = rows.first else { return nil }
        return PendingCodeRecord(
            serial: try row.decode(String.self, "serial_number"),
            deviceType: ReaderStore.deviceType(named: try row.decode(String.self, "device_type")),
            softwareVersion: try row.decode(String.self, "software_version"),
            node: try row.decode(String.self, "node_id")
        )
    }

    public func deleteRegistrationCode(_ code: String) async throws(StoreError) {
        try await client.execute("DELETE FROM registration_codes WHERE code = $1", [PostgresValue(code)])
    }

    /// Drops codes past their expiry (a reader that went away without taking its code).
    public func deleteExpiredRegistrationCodes() async throws(StoreError) {
        try await client.execute("DELETE FROM registration_codes WHERE expires_at < now()")
    }
}
