import Foundation
import GatewayPostgres

/// The `sdk_sessions` table: SDK sessions, their leases and epochs, and their adoption by
/// another replica (announced on ``sessionChannel``).
public struct SessionStore: Sendable {
    public let client: PostgresClient

    public init(client: PostgresClient) { self.client = client }

    public func insertSession(
        id: String, account: String, posDeviceID: String, lane: String, locationScope: String?, nodeID: String, lease: Duration, token: String
    ) async throws(StoreError) {
        try await client.execute(
            """
            INSERT INTO sdk_sessions (id, account_id, pos_device_id, lane_label, location_scope, node_id, lease_expires_at, resume_token_sha256)
            VALUES ($1, $2, $3, $4, $5, $6, now() + make_interval(secs => $7::double precision), \(Secrets.hashSQL(8)))
            """,
            [
                PostgresValue(id), PostgresValue(account), PostgresValue(posDeviceID), PostgresValue(lane), locationScope.map { PostgresValue($0) },
                PostgresValue(nodeID), PostgresValue(lease.seconds), PostgresValue(token),
            ]
        )
    }

    /// Extends by `lease` from now the leases of the given copies of sessions whose rows
    /// `node` still holds at the copy's epoch (a session adopted since, here or elsewhere, is
    /// not this copy's to renew). Returns the ids renewed; a copy left out is stale.
    public func renewLeases(_ sessions: [SessionEpochRecord], node: String, lease: Duration) async throws(StoreError) -> Set<String> {
        guard !sessions.isEmpty else { return [] }
        let rows = try await client.query(
            """
            UPDATE sdk_sessions AS s SET lease_expires_at = now() + make_interval(secs => $3::double precision)
            FROM unnest($1::text[], $2::bigint[]) AS held(id, epoch)
            WHERE s.id = held.id AND s.epoch = held.epoch AND s.node_id = $4 AND s.closed_at IS NULL
            RETURNING s.id
            """,
            [
                PostgresValue("{" + sessions.map(\.id).joined(separator: ",") + "}"),
                PostgresValue("{" + sessions.map { String($0.epoch) }.joined(separator: ",") + "}"),
                PostgresValue(lease.seconds), PostgresValue(node),
            ]
        )
        var renewed: Set<String> = []
        for row in rows { renewed.insert(try row.decode(String.self, "id")) }
        return renewed
    }

    /// Adopts the open session whose resume token is `token` for `node`, if its lease runs:
    /// under the row's lock its epoch grows by one, the node and lease become this replica's,
    /// and what it owns and discovered is read in the same statement, so the answer is the
    /// row as of one moment. The new epoch is announced on ``sessionChannel`` for replicas
    /// holding older copies. Nil: no such session.
    public func adoptSession(token: String, node: String, lease: Duration) async throws(StoreError) -> AdoptedSessionRecord? {
        let rows = try await client.query(
            """
            WITH adopted AS (
                UPDATE sdk_sessions SET node_id = $2, epoch = epoch + 1,
                    lease_expires_at = now() + make_interval(secs => $3::double precision)
                WHERE resume_token_sha256 = \(Secrets.hashSQL(1)) AND closed_at IS NULL AND lease_expires_at > now()
                RETURNING id, epoch, account_id, pos_device_id, lane_label, location_scope,
                          discovery_answered, to_json(discovered_readers)::text AS discovered_readers
            )
            SELECT adopted.*, owned.reader_id, owned.generation,
                   pg_notify('\(Self.sessionChannel)', adopted.id || ' ' || adopted.epoch || ' ' || $2) IS NULL AS announced
            FROM adopted
            LEFT JOIN LATERAL (
                SELECT reader_id, generation FROM reader_ownership WHERE session_id = adopted.id ORDER BY generation DESC LIMIT 1
            ) AS owned ON true
            """,
            [PostgresValue(token), PostgresValue(node), PostgresValue(lease.seconds)]
        )
        guard let row = rows.first else { return nil }
        let posDeviceID = try row.decode(String.self, "pos_device_id")
        return AdoptedSessionRecord(
            id: try row.decode(String.self, "id"),
            epoch: try row.decode(Int64.self, "epoch"),
            accountID: try row.decode(String.self, "account_id"),
            posDeviceID: posDeviceID,
            laneLabel: try row.decode(String?.self, "lane_label") ?? posDeviceID,
            locationScope: try row.decode(String?.self, "location_scope"),
            discovery: try Self.sessionDiscovery(in: row),
            reader: try row.decode(String?.self, "reader_id"),
            generation: try row.decode(Int64?.self, "generation") ?? 0
        )
    }

    /// The channel on which an adoption announces a session's new epoch: `<id> <epoch> <node>`.
    public static let sessionChannel = "reader_gateway_sessions"

    /// Ends the lease of a session at once (closed or expired), where `node` holds it.
    public func closeSession(_ id: String, node: String) async throws(StoreError) {
        try await client.execute(
            """
            UPDATE sdk_sessions SET closed_at = coalesce(closed_at, now()), lease_expires_at = least(lease_expires_at, now())
            WHERE id = $1 AND node_id = $2
            """,
            [PostgresValue(id), PostgresValue(node)]
        )
    }
}

/// A session as its row was when a replica adopted it (``SessionStore/adoptSession(token:node:lease:)``).
public struct AdoptedSessionRecord: Sendable {
    public var id: String
    /// The row's epoch after this adoption.
    public var epoch: Int64
    public var accountID: String
    public var posDeviceID: String
    public var laneLabel: String
    public var locationScope: String?
    /// Its latest answered discovery, nil when none answered.
    public var discovery: SessionDiscoveryRecord?
    /// The reader it owns per `reader_ownership`, and at which generation (0: none).
    public var reader: String?
    public var generation: Int64

    public init(
        id: String, epoch: Int64, accountID: String, posDeviceID: String, laneLabel: String, locationScope: String?,
        discovery: SessionDiscoveryRecord?, reader: String?, generation: Int64
    ) {
        self.id = id
        self.epoch = epoch
        self.accountID = accountID
        self.posDeviceID = posDeviceID
        self.laneLabel = laneLabel
        self.locationScope = locationScope
        self.discovery = discovery
        self.reader = reader
        self.generation = generation
    }
}

/// A session copy held by a replica and the epoch of the row it was made from.
public struct SessionEpochRecord: Sendable, Hashable {
    public var id: String
    public var epoch: Int64
    public init(id: String, epoch: Int64) {
        self.id = id
        self.epoch = epoch
    }
}

/// A session's announced adoption (``SessionStore/sessionChannel``).
public struct SessionAdoptionNotice: Sendable, Hashable {
    public var session: String
    public var epoch: Int64
    public var node: String

    /// Parses `<id> <epoch> <node>` (fields a later release appends are ignored); nil for
    /// anything else.
    public init?(payload: String) {
        let parts = payload.split(separator: " ")
        guard parts.count >= 3, let epoch = Int64(parts[1]) else { return nil }
        session = String(parts[0])
        self.epoch = epoch
        node = String(parts[2])
    }
}
