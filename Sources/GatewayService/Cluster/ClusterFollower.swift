import GatewayCore
import GatewayOperations
import GatewayPostgres
import GatewayRepositories

/// Follows what other replicas change: ownership notices (re-read and applied to the
/// registry) and reader status announcements; announces this replica's own.
struct ClusterFollower: Sendable, StoreFollowUps {
    /// The connection LISTEN and NOTIFY go through (ownership, session and status notices).
    let notices: PostgresClient
    /// The reader a status notice names, as its owner's account reads it.
    let readerRecords: any ReaderRepository
    /// How another replica's session lost a reader.
    let displacements: any SessionDisplacements
    /// Ownership rows re-read when a notice names their readers, or to reconcile.
    let cluster: any OwnershipSnapshots & RollbackRepairs
    let registry: LiveRegistry
    let metrics: GatewayMetrics
    let node: NodeIdentity
    let logger = Logger(component: "service")
}
