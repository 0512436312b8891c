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
    /// Session rows and connection tokens.
    let sessions: any SessionRepository
    /// The account's readers and locations.
    let readerRecords: any ReaderRepository
    let ownership: any OwnershipRepository
    /// `ConnectReader`'s claims: those that arrive together share one statement and one commit.
    let connects: any ReaderClaims
    /// Where readers' links live (commands for readers homed on another replica).
    let cluster: any ReaderHomes
    let bluetooth: any BluetoothRepository
    let tapToPay: any TapToPayRepository
    let registry: Registry
    let metrics: GatewayMetrics
    let node: NodeIdentity
    /// Connections to the other replicas' internal listeners (commands for readers homed there).
    let replicas: ReplicaChannels
    /// Re-reads an ownership row when a command finds the session's view stale.
    let follower: any OwnershipFollowing
    /// The software update catalogs and rules.
    let updates: SoftwareUpdateCatalog
    /// `WatchFleet`'s watchers, told of the claims this surface makes.
    let fleet: any FleetChanges
    let logger = Logger(component: "service")

    var subscribeEvents: SdkRoute.SubscribeEvents {
        .onLoop { [self] request, call, context in subscribeEvents(request, call: call, context: context) }
    }
}
