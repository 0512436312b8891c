import GatewayDomain
import GatewayRegistry

/// The registry's events when the store went back in time (see ``StoreRollback``).
extension LiveRegistry {
    /// Whether `row` is behind what this replica remembers of its reader: the rollback to
    /// repair, or nil.
    func storeRollback(of row: OwnershipRow) -> StoreRollback? {
        guard case .storeRollback(let rollback) = handle(.storeRollbackAsked(row)) else { return nil }
        return rollback
    }

    /// The store repaired `rollback`: the sessions here whose ownership vanished are told
    /// (`STORE_ROLLED_BACK`), then their commands on the reader's link fail. Returns how many
    /// sessions were told.
    @discardableResult
    func storeRolledBack(_ rollback: StoreRollback) -> Int {
        guard case .count(let told) = handle(.storeRolledBack(rollback, nowUnixMs: clock.nowUnixMs)) else { return 0 }
        return told
    }
}
