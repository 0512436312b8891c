import Foundation
import GatewayDomain
import GatewayPostgres

/// A reader's ownership as stored.
public struct ReaderOwnershipRecord: Hashable, Sendable {
    public var reader: ReaderID
    public var owner: ReaderOwner?
    public var generation: OwnershipGeneration
    /// When the current owner (or the lack of one) began.
    public var since: Date?
    public var commandInProgress: CommandInProgress?
    public var online: Bool
    public var epoch: LinkEpoch
}

/// One row of a reader's ownership history.
public struct OwnershipHistoryRecord: Hashable, Sendable {
    /// Increases with every row; rows of one reader are in the order their changes happened.
    public var id: Int64
    public var reader: ReaderID
    public var from: ReaderOwner?
    public var to: ReaderOwner?
    /// The POS device of `from`'s session, as the row recorded it when it was written (nil for
    /// rows written before migration 16 whose session row was gone by then).
    public var fromPosDevice: String?
    /// The POS device of `to`'s session, as the row recorded it.
    public var toPosDevice: String?
    public var generation: OwnershipGeneration
    public var reason: OwnershipHistoryReason
    public var at: Date
    /// For `admin_released`: the id and name of the key that forced the release (nil for
    /// releases forced before migration 23 or by a 0.1.0 binary).
    public var byKeyID: String? = nil
    public var byKeyName: String? = nil
}

/// An open SDK session of an account and the readers it owns.
public struct SessionOwnershipRecord: Hashable, Sendable {
    public var session: SessionID
    public var lane: LaneLabel
    public var leaseExpiresAt: Date
    public var readers: [ReaderID]
}

extension OwnershipStore {
    /// Who owns `reader` now (nil: no such reader has attached yet).
    public func ownership(of reader: ReaderID) async throws(StoreError) -> ReaderOwnershipRecord? {
        let rows = try await client.query(OwnershipQueries.ownerOfReader, [PostgresValue(reader.rawValue)])
        return try rows.first.map { row throws(StoreError) in try Self.ownershipRecord(row) }
    }

    /// The ownership of every reader at a location, by reader id.
    public func ownership(atLocation location: String) async throws(StoreError) -> [ReaderOwnershipRecord] {
        var records: [ReaderOwnershipRecord] = []
        for row in try await client.query(OwnershipQueries.ownershipAtLocation, [PostgresValue(location)]) {
            records.append(try Self.ownershipRecord(row))
        }
        return records
    }

    /// The ownership of every reader of an account, by reader id.
    public func ownership(inAccount account: String) async throws(StoreError) -> [ReaderOwnershipRecord] {
        var records: [ReaderOwnershipRecord] = []
        for row in try await client.query(OwnershipQueries.ownershipInAccount, [PostgresValue(account)]) {
            records.append(try Self.ownershipRecord(row))
        }
        return records
    }

    /// A reader's history, newest first: at most `limit` rows with an id below `before`.
    public func history(of reader: ReaderID, before: Int64? = nil, limit: Int = 100) async throws(StoreError) -> [OwnershipHistoryRecord] {
        let rows = try await client.query(
            OwnershipQueries.historyOfReader,
            [PostgresValue(reader.rawValue), before.map { PostgresValue($0) }, PostgresValue(limit)]
        )
        var records: [OwnershipHistoryRecord] = []
        for row in rows {
            let reason = try row.decode(String.self, "reason")
            guard let decoded = OwnershipHistoryReason(rawValue: reason) else {
                throw StoreError(.decodingFailed, "unknown ownership history reason \(reason.debugDescription); upgrade the gateway")
            }
            records.append(
                OwnershipHistoryRecord(
                    id: try row.decode(Int64.self, "id"),
                    reader: ReaderID(try row.decode(String.self, "reader_id")),
                    from: try Self.owner(row, session: "from_session_id", lane: "from_lane_label"),
                    to: try Self.owner(row, session: "to_session_id", lane: "to_lane_label"),
                    fromPosDevice: try row.decode(String?.self, "from_pos_device_id"),
                    toPosDevice: try row.decode(String?.self, "to_pos_device_id"),
                    generation: OwnershipGeneration(try row.decode(Int64.self, "generation")),
                    reason: decoded,
                    at: try row.decode(Date.self, "at"),
                    byKeyID: try row.decode(String?.self, "by_key_id"),
                    byKeyName: try row.decode(String?.self, "by_key_name")
                )
            )
        }
        return records
    }

    /// The open sessions of an account with the readers each owns, by session id.
    public func sessions(ofAccount account: String) async throws(StoreError) -> [SessionOwnershipRecord] {
        var records: [SessionOwnershipRecord] = []
        for row in try await client.query(OwnershipQueries.sessionsOfAccount, [PostgresValue(account)]) {
            let readers = try row.decode(String?.self, "readers").map { $0.split(separator: ",").map { ReaderID(String($0)) } } ?? []
            records.append(
                SessionOwnershipRecord(
                    session: SessionID(try row.decode(String.self, "id")),
                    lane: LaneLabel(try row.decode(String?.self, "lane_label") ?? ""),
                    leaseExpiresAt: try row.decode(Date.self, "lease_expires_at"),
                    readers: readers
                )
            )
        }
        return records
    }

    static func owner(_ row: PostgresRow, session: String, lane: String) throws(StoreError) -> ReaderOwner? {
        guard let id = try row.decode(String?.self, session) else { return nil }
        return ReaderOwner(session: SessionID(id), lane: LaneLabel(try row.decode(String?.self, lane) ?? ""))
    }

    static func ownershipRecord(_ row: PostgresRow) throws(StoreError) -> ReaderOwnershipRecord {
        let owner = try owner(row, session: "session_id", lane: "lane_label")
        let command = try row.decode(String?.self, "command").flatMap(ReaderCommand.init(rawValue:))
        return ReaderOwnershipRecord(
            reader: ReaderID(try row.decode(String.self, "reader_id")),
            owner: owner,
            generation: OwnershipGeneration(try row.decode(Int64.self, "generation")),
            since: try row.decode(Date?.self, "since"),
            commandInProgress: command.flatMap { command in owner.map { CommandInProgress(command: command, session: $0.session) } },
            online: try row.decode(Bool.self, "online"),
            epoch: LinkEpoch(try row.decode(Int64.self, "link_epoch"))
        )
    }
}

/// The admin queries; each is an index scan (the store tests check the plans).
enum OwnershipQueries {
    static let columns = "o.reader_id, o.session_id, o.lane_label, o.generation, o.since, o.command, o.online, o.link_epoch"

    static let ownerOfReader = "SELECT \(columns) FROM reader_ownership o WHERE o.reader_id = $1::text"

    static let ownershipAtLocation = """
        SELECT \(columns) FROM readers r JOIN reader_ownership o ON o.reader_id = r.id
        WHERE r.location_id = $1::text ORDER BY r.id
        """

    static let ownershipInAccount = """
        SELECT \(columns) FROM readers r JOIN reader_ownership o ON o.reader_id = r.id
        WHERE r.account_id = $1::text ORDER BY r.id
        """

    static let historyOfReader = """
        SELECT h.id, h.reader_id, h.from_session_id, h.from_lane_label, h.from_pos_device_id,
               h.to_session_id, h.to_lane_label, h.to_pos_device_id, h.generation, h.reason::text AS reason, h.at,
               h.by_key_id, h.by_key_name
        FROM ownership_history h
        WHERE h.reader_id = $1::text AND ($2::bigint IS NULL OR h.id < $2::bigint)
        ORDER BY h.id DESC
        LIMIT $3::integer
        """

    static let sessionsOfAccount = """
        SELECT s.id, s.lane_label, s.lease_expires_at,
               (SELECT string_agg(o.reader_id, ',' ORDER BY o.reader_id) FROM reader_ownership o WHERE o.session_id = s.id) AS readers
        FROM sdk_sessions s
        WHERE s.account_id = $1::text AND s.closed_at IS NULL
        ORDER BY s.id
        """
}
