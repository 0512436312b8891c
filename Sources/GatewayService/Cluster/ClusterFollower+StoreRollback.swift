import GatewayDomain
import GatewayOperations
import GatewayRegistry
import GatewayRepositories

extension ClusterFollower {
    /// Repairs a reader's row found behind what this replica knows (``StoreRollback``): the
    /// store went back in time, so it is not trusted. The row is released at a generation
    /// above every one this replica has seen and the live link here is written back, in one
    /// statement that re-checks under the row's lock; then the sessions here whose ownership
    /// vanished are told (`STORE_ROLLED_BACK`). Returns the row to apply (re-read), or nil
    /// when nothing was repaired (the caller applies the row it has).
    func repair(_ rollback: StoreRollback) async -> OwnershipSnapshot? {
        metrics.storeRollbacks.labels(StoreRollbackStep.detected).increment()
        let repaired = await followUp(
            "repairing a reader's row that went back in time", leaves: "the row as the store has it; the next reconcile tries again"
        ) {
            try await cluster.repairRollback(
                reader: rollback.reader, floor: rollback.floor, floorHolder: rollback.floorHolder, link: rollback.link, node: node.id
            )
        } ?? nil
        guard let repaired else { return nil }
        metrics.storeRollbacks.labels(StoreRollbackStep.repaired).increment()
        let told = registry.storeRolledBack(rollback)
        if told > 0 { metrics.storeRollbacks.labels(StoreRollbackStep.sessionTold).increment(by: UInt64(told)) }
        logger.warning("the store went back in time for a reader: repaired", [
            "reader": rollback.reader, "store_generation": repaired.storeGeneration, "known_generation": rollback.floor,
            "new_generation": repaired.generation, "link_rewritten": rollback.link != nil, "sessions_told": told,
        ])
        let snapshot = await followUp("re-reading a repaired reader's row", leaves: "the next reconcile applies it") {
            try await cluster.ownershipSnapshot([rollback.reader])
        }
        return snapshot?.first
    }
}
