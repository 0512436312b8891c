import Foundation
import GatewayCore
import GatewayDomain
import GatewayOperations
import GatewayPostgres
import GatewayRegistry
import GatewayRepositories
import GatewayWire
import Synchronization

/// The gateway: one surface per service, wired over what they share, and the
/// replica's background work (sweeper, node membership, cluster notices).
///
/// Each surface is a type that registers its own methods (``RouteProvider``):
/// ``ReaderLinkService``, ``SDKService``, ``FleetAdminService`` on the public port,
/// ``ReplicaLinkService`` on the internal one. They share the store and the
/// ``LiveRegistry``: the pure `ReaderRegistry` machine behind one lock, whose actions
/// (sends, call ends, completions) are performed after the lock is released. Sends go
/// through ``ServerCall``, which hops to the connection's event loop, so no loop ever
/// waits for the store.
final class Gateway: Sendable, StoreFollowUps {
    let configuration: ServiceConfiguration
    let database: GatewayDatabase
    let ownership: OwnershipStore
    let metrics: GatewayMetrics
    let registry: LiveRegistry
    let logger = Logger(component: "service")
    /// This replica in the node directory (its id changes when it is fenced).
    let node: NodeIdentity
    let cluster: ClusterStore
    /// Connections to the other replicas' internal listeners.
    let replicas: ReplicaChannels
    let loops: EventLoopGroupBox
    let follower: ClusterFollower
    let readerLink: ReaderLinkService
    let sdk: SDKService
    let admin: FleetAdminService
    let replicaLink: ReplicaLinkService
    /// This replica's `WatchFleet` watchers.
    let fleet: FleetWatchHub
    /// Failed authentications, limited per source address and account (FleetAdmin and the console).
    let limiter: AuthenticationLimiter
    let webhooks: WebhookDeliveryWorker

    init(client: PostgresClient, configuration: ServiceConfiguration, metrics: GatewayMetrics) {
        let database = GatewayDatabase(client: client)
        let ownership = OwnershipStore(client: client)
        let cluster = ClusterStore(client: client)
        let node = NodeIdentity(name: configuration.nodeName)
        let loops = EventLoopGroupBox()
        let replicas = ReplicaChannels(group: loops)
        let registry = LiveRegistry(commandTimeout: configuration.commandTimeout, clock: configuration.clock)
        let follower = ClusterFollower(
            notices: client, readerRecords: database.readers, displacements: database.sessions, cluster: cluster, registry: registry, metrics: metrics, node: node
        )
        let bluetooth = BluetoothStore(client: client)
        let updates = SoftwareUpdateCatalog(store: SoftwareUpdateStore(client: client), clock: configuration.updateClock, cacheClock: configuration.clock)
        let fleet = FleetWatchHub(database: database, registry: registry, metrics: metrics)
        let events = GatewayEventLog(client: client, metrics: metrics, logger: Logger(component: "service"))
        self.fleet = fleet
        let limiter = AuthenticationLimiter(
            buckets: database.authFailures, perSource: configuration.authFailuresPerSource, perAccount: configuration.authFailuresPerAccount,
            clock: configuration.clock, metrics: metrics.authentication
        )
        self.limiter = limiter
        self.webhooks = WebhookDeliveryWorker(
            store: WebhookStore(client: client), configuration: configuration.webhooks, metrics: metrics.webhooks, loops: loops,
            replica: { [node] in node.id }
        )
        self.configuration = configuration
        self.database = database
        self.ownership = ownership
        self.cluster = cluster
        self.node = node
        self.loops = loops
        self.replicas = replicas
        self.metrics = metrics
        self.registry = registry
        self.follower = follower
        self.readerLink = ReaderLinkService(
            configuration: configuration, readerRecords: database.readers, credentials: database.readers, codes: database.registrationCodes,
            linkEndings: bluetooth,
            ownership: ownership, registry: registry, metrics: metrics, node: node, follower: follower, updates: updates
        )
        self.sdk = SDKService(
            configuration: configuration, sessions: database.sessions, tokens: database.connectionTokens, readerRecords: database.readers,
            locations: database.locations, ownership: ownership,
            // A lone connect leaves at once; connects that arrive while the configured batches are
            // in flight leave together in the next one.
            connects: OwnershipClaimBatcher(
                store: ownership, maximumInFlight: min(configuration.connectBatchesInFlight, client.configuration.maximumConnections)
            ),
            cluster: cluster, bluetooth: bluetooth, tapToPay: TapToPayStore(client: client),
            registry: registry, metrics: metrics, node: node, replicas: replicas, follower: follower, updates: updates, fleet: fleet, events: events
        )
        self.admin = FleetAdminService(
            configuration: configuration, accounts: database.apiKeys, consoleSessions: database.consoleSessions,
            locations: database.locations, readerRecords: database.readers, registrations: database.readers,
            codes: database.registrationCodes, tokens: database.connectionTokens, ownership: ownership, linkEndings: bluetooth, cluster: cluster, registry: registry,
            node: node, replicas: replicas, metrics: metrics, updates: updates, fleet: fleet, events: events, audit: database.audit,
            limiter: limiter, webhooks: WebhookStore(client: client)
        )
        self.replicaLink = ReplicaLinkService(credentials: database.readers, registry: registry)
    }

    /// Every method path of the public port: the reader link, SDK and fleet admin surfaces.
    var routes: MethodRouter {
        var router = MethodRouter()
        readerLink.registerMethods(with: &router)
        sdk.registerMethods(with: &router)
        admin.registerMethods(with: &router)
        return router
    }

    /// The methods of the internal listener (replica-to-replica, mutual TLS).
    var replicaRoutes: MethodRouter {
        var router = MethodRouter()
        replicaLink.registerMethods(with: &router)
        return router
    }

    /// A connection closed: sessions it carried may now be detached (their lease starts running).
    func connectionClosed(_ connectionID: UInt64) {
        registry.connectionClosed(connectionID, now: configuration.clock.now)
    }
}
