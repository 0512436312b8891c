import GatewayCore
import GatewayPostgres

extension Migration {
    /// `store_rolled_back`, a reason of `ownership_history`: a replica found a reader's row
    /// behind what it had acted on (an asynchronous standby promoted without the old
    /// primary's last transactions) and released the reader at a generation above every one it
    /// knew (`ClusterStore.repairRollback`). An expand step with floor 0.1.0: an older replica
    /// reads an unknown reason as the reader lost (`GatewayDatabase.displacement`).
    static let v0019StoreRollbackReason = Migration(
        version: 19,
        name: "ownership history: a reader released because the store went back in time",
        compatibleFrom: GatewayVersion(0, 1, 0),
        statements: [
            "ALTER TYPE ownership_reason ADD VALUE IF NOT EXISTS 'store_rolled_back'",
        ]
    )
}
