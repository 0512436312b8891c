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
    /// when nothing was repaired (the caller applies the row it has). Counted as detected only
    /// when the locked re-check confirms the row is behind (or cannot run): a row read just
    /// before a claim here committed is not a rollback.
    func repair(_ rollback: StoreRollback) async -> OwnershipSnapshot? {
        let repaired: RolledBackRow
        do {
            guard let row = try await cluster.repairRollback(
                reader: rollback.reader, floor: rollback.floor, floorHolder: rollback.floorHolder, link: rollback.link, node: node.id
            ) else {
                // The row caught up before its lock was taken (a claim committed after the row
                // was read, or another replica repaired it): nothing went back here.
                return nil
            }
            repaired = row
        } catch {
            metrics.storeRollbacks.labels(StoreRollbackStep.detected).increment()
            metrics.storeErrors.labels(StoreErrorKind(error)).increment()
            logger.warning("repairing a reader's row that went back in time failed: the next reconcile tries again", [
                "reader": rollback.reader, "known_generation": rollback.floor, "error": "\(error)",
            ])
            return nil
        }
        metrics.storeRollbacks.labels(StoreRollbackStep.detected).increment()
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
