import GatewayCore
import GatewayOperations
import GatewayRepositories

/// Follows what other replicas change: ownership notices (re-read and applied to the
/// registry) and reader status announcements; announces this replica's own.
struct ClusterFollower: Sendable, StoreFollowUps {
    let database: GatewayDatabase
    let cluster: ClusterStore
    let registry: Registry
    let metrics: GatewayMetrics
    let node: NodeIdentity
    let logger = Logger(component: "service")
}
