import Foundation
import GatewayPostgres
import GatewayWire

/// A registered reader as the `readers` table holds it.
public struct ReaderRecord: Sendable, Hashable {
    public var id: String
    public var accountID: String
    public var serial: String
    public var label: String
    public var deviceType: ReaderGatewayV1.DeviceType
    public var softwareVersion: String
    public var locationID: String?
    public var lastSeen: Date?
    /// Whether the reader has a link on some replica (`readers.status`).
    public var online: Bool = false

    public init(
        id: String, accountID: String, serial: String, label: String, deviceType: ReaderGatewayV1.DeviceType,
        softwareVersion: String, locationID: String?, lastSeen: Date?, online: Bool = false
    ) {
        self.id = id
        self.accountID = accountID
        self.serial = serial
        self.label = label
        self.deviceType = deviceType
        self.softwareVersion = softwareVersion
        self.locationID = locationID
        self.lastSeen = lastSeen
        self.online = online
    }
}

/// The `readers` table: registered readers, their credentials and what their links report.
/// Reads by id take the caller's account.
public struct ReaderStore: Sendable {
    public let client: PostgresClient

    public init(client: PostgresClient) { self.client = client }

    public static let readerColumns = "id, account_id, serial_number, label, device_type, software_version, location_id, last_seen_at, status"

    /// Inserts a reader, and `audit` in the insert's statement; a serial that is already
    /// registered throws `uniqueViolation`.
    public func insertReader(_ reader: ReaderRecord, credential: String?, audit: AuditEntry? = nil) async throws(StoreError) {
        let insert = """
            INSERT INTO readers (id, account_id, serial_number, label, device_type, software_version, location_id, credential_sha256)
            VALUES ($1, $2, $3, $4, $5, $6, $7, CASE WHEN $8::text IS NULL THEN NULL ELSE \(Secrets.hashSQL(8)) END)
            """
        let parameters: [PostgresValue?] = [
            PostgresValue(reader.id), PostgresValue(reader.accountID), PostgresValue(reader.serial), PostgresValue(reader.label),
            PostgresValue(Self.deviceTypeName(reader.deviceType)), PostgresValue(reader.softwareVersion),
            reader.locationID.map { PostgresValue($0) }, credential.map { PostgresValue($0) },
        ]
        guard let audit else {
            try await client.execute(insert, parameters)
            return
        }
        try await client.execute(
            "WITH inserted AS (\(insert) RETURNING id)\n\(AuditStore.insert(from: "inserted", parametersFrom: 9))",
            parameters + AuditStore.parameters(audit)
        )
    }

    /// Registers several readers in one transaction (all or none), `audit` written in it.
    public func insertReaders(_ readers: [ReaderRecord], audit: AuditEntry? = nil) async throws -> Void {
        try await client.withTransaction { transaction in
            if let audit { try await transaction.execute(AuditStore.insert, AuditStore.parameters(audit)) }
            for reader in readers {
                try await transaction.execute(
                    """
                    INSERT INTO readers (id, account_id, serial_number, label, device_type, software_version, location_id)
                    VALUES ($1, $2, $3, $4, $5, $6, $7)
                    """,
                    [
                        PostgresValue(reader.id), PostgresValue(reader.accountID), PostgresValue(reader.serial), PostgresValue(reader.label),
                        PostgresValue(Self.deviceTypeName(reader.deviceType)), PostgresValue(reader.softwareVersion),
                        reader.locationID.map { PostgresValue($0) },
                    ]
                )
            }
        }
    }

    public func reader(_ id: String, account: String) async throws(StoreError) -> ReaderRecord? {
        let rows = try await client.query(
            "SELECT \(Self.readerColumns) FROM readers WHERE id = $1 AND account_id = $2",
            [PostgresValue(id), PostgresValue(account)]
        )
        return try rows.first.map { row throws(StoreError) in try Self.reader(row) }
    }

    public func reader(serial: String) async throws(StoreError) -> ReaderRecord? {
        let rows = try await client.query("SELECT \(Self.readerColumns) FROM readers WHERE serial_number = $1", [PostgresValue(serial)])
        return try rows.first.map { row throws(StoreError) in try Self.reader(row) }
    }

    public func reader(credential: String) async throws(StoreError) -> ReaderRecord? {
        let rows = try await client.query(
            "SELECT \(Self.readerColumns) FROM readers WHERE credential_sha256 = \(Secrets.hashSQL(1))", [PostgresValue(credential)]
        )
        return try rows.first.map { row throws(StoreError) in try Self.reader(row) }
    }

    /// The account's readers, optionally at one location, by id.
    public func readers(account: String, location: String?) async throws(StoreError) -> [ReaderRecord] {
        let rows = try await client.query(
            "SELECT \(Self.readerColumns) FROM readers WHERE account_id = $1 AND ($2::text IS NULL OR location_id = $2::text) ORDER BY id",
            [PostgresValue(account), location.map { PostgresValue($0) }]
        )
        var result: [ReaderRecord] = []
        for row in rows { result.append(try Self.reader(row)) }
        return result
    }

    /// Records what an attaching reader reported.
    public func readerReported(_ id: String, softwareVersion: String, deviceType: ReaderGatewayV1.DeviceType) async throws(StoreError) {
        try await client.execute(
            """
            UPDATE readers SET software_version = $2, last_seen_at = now(),
                device_type = CASE WHEN $3 = 'unspecified' THEN device_type ELSE $3 END
            WHERE id = $1
            """,
            [PostgresValue(id), PostgresValue(softwareVersion), PostgresValue(Self.deviceTypeName(deviceType))]
        )
    }

    /// Deletes the account's reader `id`, and writes `audit` in the delete's statement when
    /// it deletes one; false when the account has no such reader.
    public func deleteReader(_ id: String, account: String, audit: AuditEntry? = nil) async throws(StoreError) -> Bool {
        let delete = "DELETE FROM readers WHERE id = $1 AND account_id = $2"
        guard let audit else { return try await client.execute(delete, [PostgresValue(id), PostgresValue(account)]) > 0 }
        let rows = try await client.query(
            """
            WITH deleted AS (\(delete) RETURNING id), logged AS (\(AuditStore.insert(from: "deleted", parametersFrom: 3)))
            SELECT count(*) AS deleted FROM deleted
            """,
            [PostgresValue(id), PostgresValue(account)] + AuditStore.parameters(audit)
        )
        return try (rows.first?.decode(Int64.self, "deleted") ?? 0) > 0
    }

    public static func reader(_ row: PostgresRow) throws(StoreError) -> ReaderRecord {
        ReaderRecord(
            id: try row.decode(String.self, "id"),
            accountID: try row.decode(String.self, "account_id"),
            serial: try row.decode(String.self, "serial_number"),
            label: try row.decode(String?.self, "label") ?? "",
            deviceType: deviceType(named: try row.decode(String.self, "device_type")),
            softwareVersion: try row.decode(String?.self, "software_version") ?? "",
            locationID: try row.decode(String?.self, "location_id"),
            lastSeen: try row.decode(Date?.self, "last_seen_at"),
            online: try row.decode(String.self, "status") == "online"
        )
    }

    /// `bbpos_wisepos_e` for `DEVICE_TYPE_BBPOS_WISEPOS_E`.
    public static func deviceTypeName(_ type: ReaderGatewayV1.DeviceType) -> String {
        guard let name = type.protoName else { return "unspecified" }
        return String(name.dropFirst("DEVICE_TYPE_".count)).lowercased()
    }

    public static func deviceType(named name: String) -> ReaderGatewayV1.DeviceType {
        deviceTypesByName[name] ?? .unspecified
    }

    /// Every known device type by its stored name, built once (every reader row decoded
    /// looks its type up here).
    private static let deviceTypesByName: [String: ReaderGatewayV1.DeviceType] = Dictionary(
        ReaderGatewayV1.DeviceType.knownValues.map { (deviceTypeName($0), $0) }, uniquingKeysWith: { first, _ in first }
    )
}
