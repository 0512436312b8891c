import GatewayPostgres
import GatewayWire

/// How a session lost its reader, as the ownership history recorded it.
public struct Displacement: Sendable {
    public var reason: ReaderGatewayV1.DisconnectReason
    public var takenByLane: String?
    public var takenByPosDeviceID: String?

    public init(reason: ReaderGatewayV1.DisconnectReason, takenByLane: String?, takenByPosDeviceID: String?) {
        self.reason = reason
        self.takenByLane = takenByLane
        self.takenByPosDeviceID = takenByPosDeviceID
    }
}

extension SessionStore {
    /// The first change of owner after `generation` that took `reader` from `session`, with
    /// the taking session's lane and POS device as the history row recorded them. A release
    /// because the store went back in time counts whoever the row named then: the session's
    /// own grant may be among the transactions the store lost.
    public func displacement(of session: String, from reader: String, after generation: Int64) async throws(StoreError) -> Displacement? {
        let rows = try await client.query(
            """
            SELECT h.reason::text AS reason, h.to_lane_label, h.to_pos_device_id
            FROM ownership_history h
            WHERE h.reader_id = $1 AND h.generation > $3 AND h.reason <> 'refused_busy'
              AND (h.from_session_id = $2 OR h.reason::text = 'store_rolled_back')
            ORDER BY h.generation LIMIT 1
            """,
            [PostgresValue(reader), PostgresValue(session), PostgresValue(generation)]
        )
        guard let row = rows.first else { return nil }
        let reason: ReaderGatewayV1.DisconnectReason = switch try row.decode(String.self, "reason") {
        case "replaced": .replaced
        case "reader_lost": .readerLost
        case "admin_released": .adminReleased
        case "session_expired": .sessionExpired
        case "released": .requested
        case "store_rolled_back": .storeRolledBack
        default: .readerLost
        }
        return Displacement(
            reason: reason,
            takenByLane: try row.decode(String?.self, "to_lane_label"),
            takenByPosDeviceID: try row.decode(String?.self, "to_pos_device_id")
        )
    }
}
