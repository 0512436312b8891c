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
