import Foundation
import GatewayCore
import GatewayDomain
import GatewayPostgres

/// The replicas of one gateway cluster, as PostgreSQL (the only shared state) records them.
///
/// Each replica registers as a node (a new id per process start), heartbeats every lease/5, and
/// reaps the nodes that stopped heartbeating (after it has itself heartbeated without failure for
/// a whole lease). Reaping deletes the node rows and detaches the reader links they held, in one
/// statement, exactly once however many replicas reap at once; the owners keep their readers
/// until the offline bound passes without a re-attach
/// (``OwnershipStore/releaseDetachedReaders(offlineBound:limit:)``). A replica whose heartbeat
/// finds its row gone was reaped and must fence itself.
///
/// Times are the database's clock, so replicas' clocks need not agree.
public final class ClusterStore: Sendable {
    let client: PostgresClient
    let logger: Logger

    public init(client: PostgresClient, logger: Logger = Logger(component: "cluster")) {
        self.client = client
        self.logger = logger
    }

    /// Registers `node`, reachable by other replicas at `internalAddress`. Registering an id
    /// again refreshes its address and heartbeat.
    ///
    /// Runs on the client's reserved connection, like ``heartbeat(node:)``.
    public func register(node: String, internalAddress: String) async throws(StoreError) {
        try await client.executeReserved(
            ClusterStatements.register,
            [PostgresValue(node), PostgresValue(internalAddress), PostgresValue(GatewayVersion.current.description), PostgresValue(Migrations.latestVersion)]
        )
    }

    /// Records that `node` is alive.
    ///
    /// False when the row is gone: this node was reaped and must fence itself (close every
    /// connection, register as a new node, act on nothing it remembered).
    ///
    /// Runs on the client's reserved connection (``PostgresClient/executeReserved(_:_:)``): a
    /// burst of statements filling the pool (thousands of links lost at once) cannot hold the
    /// heartbeat back past the node lease and cost the replica its readers.
    public func heartbeat(node: String) async throws(StoreError) -> Bool {
        try await client.executeReserved(ClusterStatements.heartbeat, [PostgresValue(node)]) == 1
    }

    /// ``heartbeat(node:)`` that also records this node's `WatchFleet` watchers and returns
    /// how many the other nodes have (as of their own last heartbeats); nil when the row is
    /// gone (reaped: fence).
    public func heartbeat(node: String, fleetWatchers: Int) async throws(StoreError) -> Int? {
        let rows = try await client.queryReserved(ClusterStatements.heartbeatWithWatchers, [PostgresValue(node), PostgresValue(Int64(fleetWatchers))])
        guard let row = rows.first else { return nil }
        return Int(try row.decode(Int64.self, "watchers_elsewhere"))
    }

    /// Deletes nodes silent for `lease` and detaches their links, in one statement; returns
    /// their ids (each reaped exactly once, whichever replica's call reaped it).
    public func reapDeadNodes(lease: Duration) async throws(StoreError) -> [String] {
        let rows = try await client.query(ClusterStatements.reap, [PostgresValue(lease.seconds)])
        var reaped: [String] = []
        for row in rows {
            let node = try row.decode(String.self, "node_id")
            reaped.append(node)
            logger.info("reaped a dead node", ["node": node, "detachedLinks": try row.decode(Int64.self, "detached_links")])
        }
        return reaped
    }

    /// Clean shutdown: deletes the node and detaches its links (the owners keep their readers
    /// until the offline bound passes without a re-attach).
    public func deregister(node: String) async throws(StoreError) {
        try await client.execute(ClusterStatements.deregister, [PostgresValue(node)])
    }

    /// Every registered node, by id.
    public func nodes() async throws(StoreError) -> [NodeRecord] {
        try await client.query(ClusterStatements.nodes).map { row throws(StoreError) in
            NodeRecord(
                id: try row.decode(String.self, "node_id"),
                internalAddress: try row.decode(String.self, "internal_address"),
                startedAt: try row.decode(Date.self, "started_at"),
                heartbeatAt: try row.decode(Date.self, "heartbeat_at"),
                version: try row.decode(String?.self, "version")
            )
        }
    }

    /// Where the reader's link lives: epoch, node, and that node's internal address (nil: no
    /// live link: offline, detached, or on a node no longer registered).
    public func readerHome(_ reader: ReaderID) async throws(StoreError) -> ReaderHome? {
        guard let row = try await client.query(ClusterStatements.readerHome, [PostgresValue(reader.rawValue)]).first else { return nil }
        return ReaderHome(
            epoch: LinkEpoch(try row.decode(Int64.self, "link_epoch")),
            node: try row.decode(String.self, "link_node"),
            internalAddress: try row.decode(String.self, "internal_address")
        )
    }

    /// Current rows for reconciling memory with the truth, by reader id (readers without an
    /// ownership row, never attached, are left out).
    public func ownershipSnapshot(_ readers: [ReaderID]) async throws(StoreError) -> [OwnershipSnapshot] {
        guard !readers.isEmpty else { return [] }
        let rows = try await client.query(
            ClusterStatements.snapshot,
            [PostgresValue(text: OwnershipClaimBatcher.arrayLiteral(readers.map(\.rawValue)))]
        )
        return try rows.map { row throws(StoreError) in
            OwnershipSnapshot(
                reader: ReaderID(try row.decode(String.self, "reader_id")),
                generation: OwnershipGeneration(try row.decode(Int64.self, "generation")),
                session: try row.decode(String?.self, "session_id").map(SessionID.init),
                laneLabel: try row.decode(String?.self, "lane_label"),
                epoch: LinkEpoch(try row.decode(Int64.self, "link_epoch")),
                node: try row.decode(String?.self, "link_node"),
                online: try row.decode(Bool.self, "online"),
                detached: try row.decode(Bool.self, "detached")
            )
        }
    }

    /// The cluster-wide setting `name`, created with `make()` by the first replica that asks.
    ///
    /// Every caller gets the same value: concurrent creators race on one INSERT … ON CONFLICT DO
    /// NOTHING, and all read back the row that won. `make` runs only when the setting is
    /// missing (possibly on several replicas at once; all but one result are discarded).
    public func setting(_ name: String, createWith make: @Sendable () throws -> String) async throws -> String {
        if let existing = try await read(setting: name) { return existing }
        let made = try make()
        try await client.execute(ClusterStatements.createSetting, [PostgresValue(name), PostgresValue(made)])
        guard let value = try await read(setting: name) else {
            throw StoreError(.queryFailed, "the cluster setting \(name.debugDescription) vanished right after it was created; is another process deleting it?")
        }
        return value
    }

    private func read(setting name: String) async throws(StoreError) -> String? {
        try await client.query(ClusterStatements.setting, [PostgresValue(name)]).first?.decode(String.self, "value")
    }
}
