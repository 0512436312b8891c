import GatewayCore
import GatewayDomain
import GatewayPostgres

/// Ends the ownerships of sessions whose lease ran out, periodically, on every replica.
///
/// Run one per gateway process: sweepers on different replicas skip each other's rows, and
/// each expiry is recorded once (see ``OwnershipStore/expireSessions(limit:)``). A crashed
/// lane stops heartbeating, its lease runs out, and within one `interval` its readers are free.
public struct OwnershipLeaseSweeper: Sendable {
    let store: OwnershipStore
    let interval: Duration
    let batchSize: Int
    let onExpired: @Sendable ([OwnershipStore.ExpiredOwnership]) async -> Void

    /// - Parameters:
    ///   - interval: the pause between sweeps once nothing more is expired.
    ///   - batchSize: readers released per statement at most.
    ///   - onExpired: runs the actions of each expiry (notify the session, cancel its command).
    public init(
        store: OwnershipStore,
        interval: Duration = .seconds(5),
        batchSize: Int = 500,
        onExpired: @escaping @Sendable ([OwnershipStore.ExpiredOwnership]) async -> Void
    ) {
        self.store = store
        self.interval = interval
        self.batchSize = max(1, batchSize)
        self.onExpired = onExpired
    }

    /// Sweeps until the task is cancelled. A store error is logged and the next sweep retries.
    public func run() async {
        while !Task.isCancelled {
            do throws(StoreError) {
                // Drain in batches, then rest.
                while !Task.isCancelled {
                    let expired = try await store.expireSessions(limit: batchSize)
                    if !expired.isEmpty {
                        store.logger.info("session leases expired", ["readers": expired.count])
                        await onExpired(expired)
                    }
                    if expired.count < batchSize { break }
                }
            } catch {
                store.logger.warning("lease sweep failed; retrying after the interval", ["error": error])
            }
            do {
                try await Task.sleep(for: interval)
            } catch {
                return
            }
        }
    }
}
