import GatewayCore
import GatewayOperations
import GatewayRepositories
import GatewayWire

/// The fleet admin surface (`FleetAdmin/*`): locations, reader registration (by code or
/// serial), ownership and its history, forced releases, connection tokens, sessions. It
/// shares the registry and the store with the other surfaces.
struct FleetAdminService: FleetAdminRoutes, ShowsReaders, StoreFollowUps {
    let configuration: ServiceConfiguration
    let database: GatewayDatabase
    let ownership: OwnershipStore
    let cluster: ClusterStore
    let registry: Registry
    let node: NodeIdentity
    /// Connections to the other replicas' internal listeners (a code shown by a reader homed there).
    let replicas: ReplicaChannels
    let metrics: GatewayMetrics
    /// The software update catalogs and rules.
    let updates: SoftwareUpdateCatalog
    /// `WatchFleet`'s watchers, told of the changes this surface makes.
    let fleet: FleetWatchHub
    let logger = Logger(component: "service")

    var readerRecords: any ReaderRepository { database }

    var watchFleet: FleetAdminRoute.WatchFleet {
        .task { [self] request, call, context in await watchFleet(request, call: call, context: context) }
    }
}
