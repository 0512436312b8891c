import GatewayCore
import GatewayOperations
import GatewayRepositories
import GatewayWire

/// The SDK surface (`Sdk/*`) for point-of-sale lanes: sessions and their events,
/// discovery, connecting readers, and the commands relayed to them (here, or over the
/// replica link to the reader's home). It shares the registry and the store with the
/// other surfaces.
struct SdkService: SdkRoutes, ShowsReaders, StoreFollowUps {
    let configuration: ServiceConfiguration
    let database: GatewayDatabase
    let ownership: OwnershipStore
    /// `ConnectReader`'s claims: those that arrive together share one statement and one commit.
    let connects: OwnershipClaimBatcher
    let cluster: ClusterStore
    let registry: Registry
    let metrics: GatewayMetrics
    let node: NodeIdentity
    /// Connections to the other replicas' internal listeners (commands for readers homed there).
    let replicas: ReplicaChannels
    /// Re-reads an ownership row when a command finds the session's view stale.
    let follower: ClusterFollower
    /// The software update catalogs and rules.
    let updates: SoftwareUpdateCatalog
    /// `WatchFleet`'s watchers, told of the claims this surface makes.
    let fleet: FleetWatchHub
    let logger = Logger(component: "service")

    var subscribeEvents: SdkRoute.SubscribeEvents {
        .onLoop { [self] request, call, context in subscribeEvents(request, call: call, context: context) }
    }
}
