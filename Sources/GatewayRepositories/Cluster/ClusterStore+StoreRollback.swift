import GatewayDomain
import GatewayPostgres

/// A reader's row released by ``ClusterStore/repairRollback(reader:floor:floorHolder:link:node:)``.
public struct RolledBackRow: Hashable, Sendable {
    /// The generation the row had: behind what the repairing replica knew.
    public var storeGeneration: OwnershipGeneration
    /// The generation the row has now: above every one the repairing replica knew.
    public var generation: OwnershipGeneration

    public init(storeGeneration: OwnershipGeneration, generation: OwnershipGeneration) {
        self.storeGeneration = storeGeneration
        self.generation = generation
    }
}

extension ClusterStore {
    /// Repairs a reader's row that went back in time, if it still is behind under its lock.
    ///
    /// The row is behind when its generation is below `floor` (the highest this replica
    /// knows), or at `floor` naming another owner than `floorHolder` (the session here granted
    /// it), or when the live link here (epoch `link`) is newer than the row's. Then, in one
    /// statement: the reader has no owner (nor transaction mark) at generation
    /// `max(row, floor) + 1` (and at least the timeline's floor, as every change: migration
    /// 0020), so the next claim hands out a generation nobody held; the link here is written
    /// back (online on `node` at epoch `link`); the history records `store_rolled_back` from
    /// the owner the row named. The notify trigger tells the other replicas. Nil when the row
    /// is not behind (any more): a claim committed after this replica read the row, or another
    /// replica repaired it first.
    public func repairRollback(
        reader: ReaderID, floor: OwnershipGeneration, floorHolder: SessionID?, link: LinkEpoch?, node: String
    ) async throws(StoreError) -> RolledBackRow? {
        let rows = try await client.query(
            Self.repairRollbackStatement,
            [
                PostgresValue(reader.rawValue), PostgresValue(floor.rawValue), floorHolder.map { PostgresValue($0.rawValue) },
                link.map { PostgresValue($0.rawValue) }, PostgresValue(node),
            ]
        )
        guard let row = rows.first else { return nil }
        return RolledBackRow(
            storeGeneration: OwnershipGeneration(try row.decode(Int64.self, "store_generation")),
            generation: OwnershipGeneration(try row.decode(Int64.self, "generation"))
        )
    }

    /// See ``repairRollback(reader:floor:floorHolder:link:node:)``. Parameters: reader, floor,
    /// floor holder (NULL: the floor comes from the link), link epoch (NULL: no link here to
    /// write back), node.
    static let repairRollbackStatement = """
        WITH behind AS (
            SELECT o.reader_id, o.session_id, o.lane_label, o.generation
            FROM reader_ownership o
            WHERE o.reader_id = $1::text
              AND (o.generation < $2::bigint
                   OR (o.generation = $2::bigint AND $3::text IS NOT NULL AND o.session_id IS DISTINCT FROM $3::text)
                   OR ($4::bigint IS NOT NULL AND o.link_epoch < $4::bigint))
            FOR UPDATE
        ), updated AS (
            UPDATE reader_ownership o
            SET generation = greatest(o.generation + 1, $2::bigint + 1, ownership_generation_floor()),
                session_id = NULL, lane_label = NULL, command = NULL, command_session_id = NULL, since = now(),
                online = CASE WHEN $4::bigint IS NULL THEN o.online ELSE true END,
                link_epoch = CASE WHEN $4::bigint IS NULL THEN o.link_epoch ELSE greatest(o.link_epoch, $4::bigint) END,
                link_node = CASE WHEN $4::bigint IS NULL THEN o.link_node ELSE $5::text END,
                link_detached_at = CASE WHEN $4::bigint IS NULL THEN o.link_detached_at END
            FROM behind b
            WHERE o.reader_id = b.reader_id
            RETURNING o.reader_id, o.generation
        ), status AS (
            UPDATE readers r SET status = 'online', last_seen_at = now()
            FROM updated u
            WHERE r.id = u.reader_id AND $4::bigint IS NOT NULL
        ), recorded AS (
            INSERT INTO ownership_history (reader_id, from_session_id, from_lane_label, generation, reason)
            SELECT b.reader_id, b.session_id, b.lane_label, u.generation, 'store_rolled_back'
            FROM behind b JOIN updated u USING (reader_id)
        )
        SELECT b.generation AS store_generation, u.generation
        FROM behind b JOIN updated u USING (reader_id)
        """
}
