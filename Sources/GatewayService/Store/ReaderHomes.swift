import GatewayDomain
import GatewayPostgres
import GatewayRepositories

/// Where a reader's link lives (the replica a command for it is relayed to): PostgreSQL's
/// ``ClusterStore`` in the gateway.
protocol ReaderHomes: Sendable {
    /// The replica holding `reader`'s link (nil: no link anywhere).
    func readerHome(_ reader: ReaderID) async throws(StoreError) -> ReaderHome?
}

extension ClusterStore: ReaderHomes {}

/// The replicas alive in the cluster (where a registration typed here is handed to the
/// replica whose reader shows the code): PostgreSQL's ``ClusterStore`` in the gateway.
protocol ReplicaDirectory: Sendable {
    func nodes() async throws(StoreError) -> [NodeRecord]
}

extension ClusterStore: ReplicaDirectory {}

/// Readers' ownership rows as they are now, for reconciling this replica's memory with
/// them: PostgreSQL's ``ClusterStore`` in the gateway.
protocol OwnershipSnapshots: Sendable {
    /// The rows of `readers` (readers never attached have none and are left out).
    func ownershipSnapshot(_ readers: [ReaderID]) async throws(StoreError) -> [OwnershipSnapshot]
}

extension ClusterStore: OwnershipSnapshots {}

/// Repairs a reader's row found behind what this replica knows (the store went back in time
/// after an asynchronous failover): PostgreSQL's ``ClusterStore`` in the gateway.
protocol RollbackRepairs: Sendable {
    func repairRollback(
        reader: ReaderID, floor: OwnershipGeneration, floorHolder: SessionID?, link: LinkEpoch?, node: String
    ) async throws(StoreError) -> RolledBackRow?
}

extension ClusterStore: RollbackRepairs {}
