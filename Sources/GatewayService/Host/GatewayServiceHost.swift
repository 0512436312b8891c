import GatewayCore
import GatewayOperations
import GatewayPostgres
import GatewayTransport
import GatewayWire
import Synchronization

/// The gateway as one ``LifecyclePart``: its ``run(_:)`` opens the event loops, the
/// replica-link listener and the TLS port, runs the replica's background loops as child tasks,
/// and at the shutdown drains, closes and leaves the node directory, returning only once
/// nothing it started still runs.
///
/// What it needs from outside (the store's client, the certificates) may not exist yet when the
/// process builds its services: ``Setup`` is asked for at the start of ``run(_:)``. A host runs
/// once.
public final class GatewayServiceHost: LifecyclePart {
    /// What a run needs, asked for when it starts.
    public struct Setup: Sendable {
        public var listener: GatewayListenerConfiguration
        public var service: ServiceConfiguration
        public var client: PostgresClient
        /// Runs once the TLS port is open, before the host says it started (the process prints
        /// its first-run notes here). Throwing ends the run like a failed start.
        public var listening: @Sendable (SocketAddress) async throws -> Void

        public init(
            listener: GatewayListenerConfiguration, service: ServiceConfiguration, client: PostgresClient,
            listening: @escaping @Sendable (SocketAddress) async throws -> Void = { _ in }
        ) {
            self.listener = listener
            self.service = service
            self.client = client
            self.listening = listening
        }
    }

    public let name = "gateway"
    let metrics: GatewayMetrics
    private let setUp: @Sendable () async throws -> Setup
    /// The graceful part of the shutdown, given this host's hooks (nil: none, just the close).
    private let drain: (@Sendable (DrainHooks) async -> Void)?
    /// How long the close waits for connections to end before closing them by force.
    private let closeGracePeriod: Duration
    /// What the run opened, published once for ``localAddress`` and ``goAwayAll()``.
    private let published = AtomicLazyReference<OpenedGateway>()
    /// What the run opened, once it did.
    var opened: OpenedGateway? { published.load() }
    let logger = Logger(component: "service")

    /// A host whose setup is asked for when it runs (the process: after the store is up).
    public init(
        metrics: GatewayMetrics, drain: (@Sendable (DrainHooks) async -> Void)? = nil, closeGracePeriod: Duration = .seconds(5),
        setUp: @escaping @Sendable () async throws -> Setup
    ) {
        self.metrics = metrics
        self.drain = drain
        self.closeGracePeriod = closeGracePeriod
        self.setUp = setUp
    }

    /// A host over a client that is already up (tests, tools).
    public convenience init(
        listener: GatewayListenerConfiguration, service: ServiceConfiguration, client: PostgresClient, metrics: GatewayMetrics,
        drain: (@Sendable (DrainHooks) async -> Void)? = nil, closeGracePeriod: Duration = .seconds(5)
    ) {
        self.init(metrics: metrics, drain: drain, closeGracePeriod: closeGracePeriod) {
            Setup(listener: listener, service: service, client: client)
        }
    }

    /// The ALPN protocol of the gateway's port (clients may offer it; none is fine too).
    public static let alpnProtocol = "reader-gateway/1"
    /// The ALPN protocol browsers select for the WebSocket binding on the same port.
    public static let httpAlpnProtocol = "http/1.1"

    /// The method names of every surface (for ``GatewayMetrics/init(callMethods:version:includeProcessMetrics:)``).
    public static var methodNames: [String] {
        (ReaderGatewayV1.Sdk.methods + ReaderGatewayV1.FleetAdmin.methods + ReaderGatewayV1.ReaderLink.methods).map(\.method)
    }

    /// The bound TLS address once the run opened it (it stays set after the run).
    public var localAddress: SocketAddress? { opened?.address }

    /// This replica's node id in the node directory once the run registered it.
    public var nodeID: String? { opened?.gateway.node.id }

    /// Times the public port's connections released their idle TLS buffers since the run opened
    /// it (``TLSServer/buffersReleasedCount``; 0 before).
    public var tlsBuffersReleased: Int { opened?.server.buffersReleasedCount ?? 0 }

    /// The host's whole life: setup, loops, the internal listener (replica link), the node
    /// registry, the TLS port; then serving, with the background loops as child tasks, until
    /// the shutdown; then the drain and the close, in reverse order.
    public func run(_ context: ServiceContext) async throws {
        let setup: Setup
        do { setup = try await setUp() } catch is CancellationError { return }
        guard !context.shutdown.isSet else { return }
        let gateway = Gateway(client: setup.client, configuration: setup.service, metrics: metrics)
        let loops = try EventLoopGroup(loopCount: max(1, setup.listener.loopCount))
        gateway.loops.set(loops)
        let open: OpenedGateway
        do {
            open = try await self.open(gateway, listener: setup.listener, loops: loops)
        } catch {
            gateway.loops.set(nil)
            await loops.shutdown()
            throw error
        }
        _ = published.storeIfNil(open)
        // The connection and handshake metrics are the listeners' own counts, read at each scrape.
        let metrics = self.metrics
        metrics.collection.onScrape {
            TransportMetrics.record(public: open.server.statistics, internal: open.internalServer.statistics, into: metrics)
        }
        let failure = await withDiscardingTaskGroup(returning: (any Error)?.self) { background in
            background.addTask { await gateway.runBackground(advertisedAddress: open.advertised) }
            var failure: (any Error)?
            do {
                try await setup.listening(open.address)
                context.started()
                _ = await context.shutdown.wait()
                if let drain { await drain(drainHooks(open)) }
            } catch {
                failure = error
            }
            await close(open)
            background.cancelAll()
            return failure
        }
        // Every background loop has ended with the group: now the replica link and the node's row.
        await gateway.replicas.closeAll()
        await open.internalServer.shutdown(gracePeriod: .milliseconds(200))
        // Leaving detaches this node's links in one statement; readers that re-attach keep their owners.
        do { try await gateway.cluster.deregister(node: gateway.node.id) } catch {
            logger.warning("could not leave the node directory; the others reap this node after its lease", ["error": error])
        }
        gateway.loops.set(nil)
        await loops.shutdown()
        if let failure { throw failure }
    }

    /// Stops accepting, says GOAWAY to every connection and waits up to the close grace period
    /// (the caller then cancels the background loops).
    private func close(_ open: OpenedGateway) async {
        open.gateway.readerLink.handingOver.store(true, ordering: .relaxed)
        await open.server.shutdown(gracePeriod: closeGracePeriod)
    }
}

/// What a host's run opened: published once, read by ``GatewayServiceHost/localAddress`` and the drain.
final class OpenedGateway: Sendable {
    let gateway: Gateway
    let server: TLSServer
    let internalServer: TLSServer
    let address: SocketAddress
    /// The replica-link address other replicas dial.
    let advertised: String

    init(gateway: Gateway, server: TLSServer, internalServer: TLSServer, address: SocketAddress, advertised: String) {
        self.gateway = gateway
        self.server = server
        self.internalServer = internalServer
        self.address = address
        self.advertised = advertised
    }
}
