import Foundation
import GatewayPostgres
import GatewayWire

/// One reader of a fleet view: its row, whether some replica holds its link, and who holds it.
public struct FleetRow: Sendable, Hashable {
    public var reader: ReaderRecord
    /// Some replica holds the reader's link (`reader_ownership.link_node`).
    public var linked: Bool
    /// The holding session, its lane label and pos device; nil when free.
    public var holderSession: String?
    public var holderLane: String?
    public var holderPosDevice: String?
    /// Since when the holder (or nobody) holds.
    public var since: Date?
    public var generation: Int64
    /// A collect or confirm runs.
    public var inTransaction: Bool
}

extension GatewayDatabase {
    private static let fleetSelect = """
        SELECT r.id, r.account_id, r.serial_number, r.label, r.device_type, r.software_version, r.location_id, r.last_seen_at, r.status,
               o.link_node IS NOT NULL AS linked, o.session_id, o.lane_label, s.pos_device_id, o.since,
               coalesce(o.generation, 0) AS generation, o.command IS NOT NULL AS in_transaction
        FROM readers r
        LEFT JOIN reader_ownership o ON o.reader_id = r.id
        LEFT JOIN sdk_sessions s ON s.id = o.session_id
        """

    /// The fleet view of an account's readers (of one location when `location` is set), by id.
    public func fleet(account: String, location: String?) async throws(StoreError) -> [FleetRow] {
        let rows = try await client.query(
            Self.fleetSelect + " WHERE r.account_id = $1 AND ($2::text IS NULL OR r.location_id = $2::text) ORDER BY r.id",
            [PostgresValue(account), location.map { PostgresValue($0) }]
        )
        return try rows.map { row throws(StoreError) in try Self.fleetRow(row) }
    }

    /// The fleet view of `readers` that belong to one of `accounts` (readers that do not exist,
    /// or belong to no such account, are absent).
    public func fleet(readers: [String], accounts: [String]) async throws(StoreError) -> [FleetRow] {
        guard !readers.isEmpty, !accounts.isEmpty else { return [] }
        let rows = try await client.query(
            Self.fleetSelect + " WHERE r.id = ANY ($1::text[]) AND r.account_id = ANY ($2::text[])",
            [PostgresValue(text: OwnershipClaimBatcher.arrayLiteral(readers)), PostgresValue(text: OwnershipClaimBatcher.arrayLiteral(accounts))]
        )
        return try rows.map { row throws(StoreError) in try Self.fleetRow(row) }
    }

    static func fleetRow(_ row: PostgresRow) throws(StoreError) -> FleetRow {
        FleetRow(
            reader: try ReaderStore.reader(row),
            linked: try row.decode(Bool.self, "linked"),
            holderSession: try row.decode(String?.self, "session_id"),
            holderLane: try row.decode(String?.self, "lane_label"),
            holderPosDevice: try row.decode(String?.self, "pos_device_id"),
            since: try row.decode(Date?.self, "since"),
            generation: try row.decode(Int64.self, "generation"),
            inTransaction: try row.decode(Bool.self, "in_transaction")
        )
    }
}
