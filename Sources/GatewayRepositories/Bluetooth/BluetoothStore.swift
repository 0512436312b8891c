import Foundation
import GatewayDomain
import GatewayPostgres
import GatewayWire

/// Bluetooth readers' rows: the reader in `readers` (registered by serial at connect), its
/// bond to one point-of-sale device (`bluetooth_bonds`), and why its links ended
/// (`mobile_link_endings`).
public struct BluetoothStore: Sendable {
    public let client: PostgresClient

    public init(client: PostgresClient) {
        self.client = client
    }

    /// What a connect did.
    public enum ConnectOutcome: Sendable {
        /// The reader is registered to the location, bonded to the device, with the new
        /// credential; `rebonded` when another (free) device held the bond before.
        case connected(ReaderRecord, rebonded: Bool)
        /// Another device holds the reader (`BluetoothBondRule`).
        case bondedElsewhere(device: String)
        /// The serial belongs to a reader that is not a Bluetooth reader, or to another
        /// account's reader that is in use.
        case serialTaken
    }

    /// Registers the Bluetooth reader `serial` to `location` of `account`, bonded to `device`,
    /// with a new `credential` (the previous one stops working), unless another device holds
    /// it. One transaction: the reader's row is locked while the bond is decided, so two
    /// devices connecting at once (on any replicas) take turns.
    public func connect(
        serial: String, deviceType: ReaderGatewayV1.DeviceType, softwareVersion: String, account: String, location: String,
        label: String, device: String, credential: String
    ) async throws(StoreError) -> ConnectOutcome {
        let type = ReaderStore.deviceTypeName(deviceType)
        do {
            return try await client.withTransaction { transaction in
                let found = try await transaction.query(
                    """
                    SELECT r.id, r.device_type, r.account_id, b.pos_device_id, coalesce(o.online, false) AS online, o.session_id
                      FROM readers r
                      LEFT JOIN bluetooth_bonds b ON b.reader_id = r.id
                      LEFT JOIN reader_ownership o ON o.reader_id = r.id
                     WHERE r.serial_number = $1
                       FOR UPDATE OF r
                    """,
                    [PostgresValue(serial)]
                )
                var rebonded = false
                if let row = found.first {
                    let storedType = ReaderStore.deviceType(named: try row.decode(String.self, "device_type"))
                    guard storedType.isBluetoothReaderType else { return .serialTaken }
                    let bond = try row.decode(String?.self, "pos_device_id").map {
                        BluetoothBondRule.Bond(device: $0, online: try row.decode(Bool.self, "online"), owned: try row.decode(String?.self, "session_id") != nil)
                    }
                    switch BluetoothBondRule.decide(device: device, bond: bond) {
                    case .refuse(let other): return .bondedElsewhere(device: other)
                    case .bond(let again): rebonded = again
                    }
                }
                let rows = try await transaction.query(
                    """
                    INSERT INTO readers AS r (id, account_id, serial_number, label, device_type, software_version, location_id, credential_sha256)
                    VALUES ($1, $2, $3, $4, $5, $6, $7, \(Secrets.hashSQL(8)))
                    ON CONFLICT (serial_number) DO UPDATE
                       SET account_id = EXCLUDED.account_id, location_id = EXCLUDED.location_id,
                           device_type = EXCLUDED.device_type, software_version = EXCLUDED.software_version,
                           credential_sha256 = EXCLUDED.credential_sha256
                    RETURNING \(ReaderStore.readerColumns)
                    """,
                    [
                        PostgresValue(Secrets.readerID()), PostgresValue(account), PostgresValue(serial), PostgresValue(label), PostgresValue(type),
                        PostgresValue(softwareVersion), PostgresValue(location), PostgresValue(credential),
                    ]
                )
                guard let row = rows.first else { throw StoreError(.decodingFailed, "registering Bluetooth reader \(serial) returned no row") }
                let record = try ReaderStore.reader(row)
                try await transaction.execute(
                    """
                    INSERT INTO bluetooth_bonds (reader_id, pos_device_id) VALUES ($1, $2)
                    ON CONFLICT (reader_id) DO UPDATE SET pos_device_id = EXCLUDED.pos_device_id, bonded_at = now()
                    """,
                    [PostgresValue(record.id), PostgresValue(device)]
                )
                return .connected(record, rebonded: rebonded)
            }
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError(.decodingFailed, "registering Bluetooth reader \(serial) failed: \(error)")
        }
    }

    /// The devices the given readers are bonded to (readers without a bond are absent).
    public func bonds(of readers: [String]) async throws(StoreError) -> [String: String] {
        guard !readers.isEmpty else { return [:] }
        let rows = try await client.query(
            // Reader ids (`tmr_…`) never hold a comma.
            "SELECT reader_id, pos_device_id FROM bluetooth_bonds WHERE reader_id = ANY(string_to_array($1::text, ','))",
            [PostgresValue(readers.joined(separator: ","))]
        )
        var bonds: [String: String] = [:]
        for row in rows { bonds[try row.decode(String.self, "reader_id")] = try row.decode(String.self, "pos_device_id") }
        return bonds
    }

    /// Records why a Bluetooth reader's link ended, dated `at` (when the gateway received the
    /// device's ending): the history orders the endings by it, not by when they were recorded.
    public func recordLinkEnding(reader: String, reason: ReaderGatewayV1.MobileDisconnectReason, reconnecting: Bool, at: Date) async throws(StoreError) {
        try await client.execute(
            "INSERT INTO mobile_link_endings (reader_id, reason, reconnecting, at) VALUES ($1, $2, $3, $4)",
            [PostgresValue(reader), PostgresValue(Self.reasonName(reason)), PostgresValue(reconnecting), PostgresValue(at)]
        )
    }

    /// One ended link.
    public struct LinkEnding: Sendable, Hashable {
        public var reason: ReaderGatewayV1.MobileDisconnectReason
        public var reconnecting: Bool
        public var at: Date
    }

    /// The reader's latest link endings, newest first.
    public func linkEndings(reader: String, limit: Int) async throws(StoreError) -> [LinkEnding] {
        let rows = try await client.query(
            "SELECT reason, reconnecting, at FROM mobile_link_endings WHERE reader_id = $1 ORDER BY at DESC, id DESC LIMIT $2",
            [PostgresValue(reader), PostgresValue(limit)]
        )
        return try rows.map { row throws(StoreError) in
            LinkEnding(
                reason: Self.reason(named: try row.decode(String.self, "reason")), reconnecting: try row.decode(Bool.self, "reconnecting"),
                at: try row.decode(Date.self, "at")
            )
        }
    }

    /// `powered_off` for `MOBILE_DISCONNECT_REASON_POWERED_OFF`.
    public static func reasonName(_ reason: ReaderGatewayV1.MobileDisconnectReason) -> String {
        guard let name = reason.protoName else { return "unknown" }
        return String(name.dropFirst("MOBILE_DISCONNECT_REASON_".count)).lowercased()
    }

    public static func reason(named name: String) -> ReaderGatewayV1.MobileDisconnectReason {
        ReaderGatewayV1.MobileDisconnectReason.knownValues.first { reasonName($0) == name } ?? .unknown
    }
}

extension ReaderGatewayV1.DeviceType {
    /// Whether this is a Bluetooth reader's model.
    public var isBluetoothReaderType: Bool {
        self == .bbposWisepad3 || self == .stripeM2 || self == .bbposChipper2xBt
    }
}
