import Foundation
import GatewayCore
import GatewayDomain
import GatewayOperations
import GatewayPostgres
import GatewayRegistry
import GatewayRepositories
import GatewayWire
import Synchronization

/// The gateway's services: the reader link, the SDK surface and the fleet admin
/// surface, over one registry of live readers and sessions.
///
/// What this replica knows of live readers and sessions is the ``Registry``: the pure
/// `ReaderRegistry` machine behind one lock, whose actions (sends, call ends,
/// completions) are performed after the lock is released. Sends go through
/// ``ServerCall``, which hops to the connection's event loop, so no loop ever
/// waits for the store.
final class Gateway: Sendable {
    let configuration: ServiceConfiguration
    let database: GatewayDatabase
    let ownership: OwnershipStore
    let metrics: GatewayMetrics
    let registry: Registry
    let logger = Logger(component: "service")
    /// This replica in the node registry (its id changes when it is fenced).
    let node: NodeIdentity
    let cluster: ClusterStore
    /// Connections to the other replicas' internal listeners.
    let replicas: ReplicaChannels
    let loops = EventLoopGroupBox()
    /// Set while draining or fenced: links that end now are handed over
    /// (detached, the owner keeps the reader), never reported lost.
    let handingOver = Atomic<Bool>(false)

    init(client: PostgresClient, configuration: ServiceConfiguration, metrics: GatewayMetrics) {
        self.configuration = configuration
        self.database = GatewayDatabase(client: client)
        self.ownership = OwnershipStore(client: client)
        self.cluster = ClusterStore(client: client)
        self.node = NodeIdentity(name: configuration.nodeName)
        self.replicas = ReplicaChannels(group: loops)
        self.metrics = metrics
        self.registry = Registry(commandTimeout: configuration.commandTimeout)
    }

    /// Every method path the gateway serves.
    var routes: [String: MethodHandler] {
        var routes: [String: MethodHandler] = [:]
        for (path, handler) in sdkRoutes + adminRoutes { routes[path] = handler }
        routes[ReaderGatewayV1.ReaderLink.attach.path] = .bidirectional { [self] requests, call, context in
            await attach(requests: requests, call: call, context: context)
        }
        routes[ReaderGatewayV1.Sdk.subscribeEvents.path] = .serverStreaming { [self] request, call, context in
            await subscribeEvents(request, call: call, context: context)
        }
        return routes
    }

    static func nowUnixMs() -> Int64 { Int64(Date().timeIntervalSince1970 * 1000) }
}
