import Foundation
import GatewayCore
import GatewayOperations
import GatewayPostgres
import GatewayRepositories
import GatewayTransport
import GatewayWebSocket
import GatewayWire
import Synchronization

/// Where and how the gateway listens.
public struct GatewayListenerConfiguration: Sendable {
    /// A numeric address (127.0.0.1, ::1, 0.0.0.0 in a container).
    public var host: String
    /// The TLS port; 0 picks a free one.
    public var port: Int
    /// The server certificate chain and key.
    public var certificate: CertificateKeyPair
    /// The CA whose client certificates prove reader serials (mutual TLS); nil: no reader certificates.
    public var readerCAPath: String?
    /// Event loop threads.
    public var loopCount: Int
    /// TLS handshakes in flight at once (``ConnectionLimits/maxHandshaking``).
    public var maxHandshaking = ConnectionLimits().maxHandshaking
    /// TLS handshakes in flight at once from one source address (``ConnectionLimits/maxHandshakingPerSource``).
    public var maxHandshakingPerSource = ConnectionLimits().maxHandshakingPerSource
    /// The replica-to-replica listener (mutual TLS with the cluster's internal CA).
    public var internalListener: InternalListenerConfiguration
    /// The WebSocket binding on the TLS port (browsers; PROTOCOL.md section 15): its origin
    /// allow-list and time limits. No origin is allowed by default.
    public var webSocket = WebSocketCarrierConfiguration()
    /// Message bytes one call may queue while its peer does not read (a `WatchFleet` watcher's
    /// bounded buffer); past it the call alone ends with RESOURCE_EXHAUSTED (`CONSUMER_TOO_SLOW`).
    public var maxQueuedBytesPerCall = ConnectionConfiguration(role: .server).maxQueuedBytesPerStream

    public init(
        host: String, port: Int, certificate: CertificateKeyPair, readerCAPath: String? = nil, loopCount: Int = 2,
        internalListener: InternalListenerConfiguration = InternalListenerConfiguration()
    ) {
        self.host = host
        self.port = port
        self.certificate = certificate
        self.readerCAPath = readerCAPath
        self.loopCount = loopCount
        self.internalListener = internalListener
    }
}

/// Where the replica link listens and what other replicas dial.
public struct InternalListenerConfiguration: Sendable {
    /// A numeric address to bind (0.0.0.0 in a container).
    public var host: String
    /// 0 picks a free port.
    public var port: Int
    /// The address other replicas dial; nil: `host` (which must then not be a wildcard).
    public var advertiseAddress: String?
    /// Where this replica writes its internal certificates (a private directory).
    public var certificateDirectory: String?

    public init(host: String = "127.0.0.1", port: Int = 0, advertiseAddress: String? = nil, certificateDirectory: String? = nil) {
        self.host = host
        self.port = port
        self.advertiseAddress = advertiseAddress
        self.certificateDirectory = certificateDirectory
    }
}

/// The running gateway service: event loops, the TLS listener, the services and
/// their sweeper. `start()` brings it up, `shutdown(gracePeriod:)` takes it down
/// in reverse order.
public final class GatewayServiceHost: Sendable {
    public let listener: GatewayListenerConfiguration
    let gateway: Gateway
    let running = Mutex<Running?>(nil)
    let logger = Logger(component: "service")

    struct Running: Sendable {
        var group: EventLoopGroup
        var server: TLSServer
        var internalServer: TLSServer
        /// ``Gateway/runBackground(advertisedAddress:)``: the background loops are its child
        /// tasks; cancelling it ends them, and its value is there once every one has ended.
        var background: Task<Void, Never>
    }

    public init(listener: GatewayListenerConfiguration, service: ServiceConfiguration, client: PostgresClient, metrics: GatewayMetrics) {
        self.listener = listener
        self.gateway = Gateway(client: client, configuration: service, metrics: metrics)
    }

    /// The ALPN protocol of the gateway's port (clients may offer it; none is fine too).
    public static let alpnProtocol = "reader-gateway/1"
    /// The ALPN protocol browsers select for the WebSocket binding on the same port.
    public static let httpAlpnProtocol = "http/1.1"

    /// The method names of every surface (for ``GatewayMetrics/init(callMethods:version:includeProcessMetrics:)``).
    public static var methodNames: [String] {
        (ReaderGatewayV1.Sdk.methods + ReaderGatewayV1.FleetAdmin.methods + ReaderGatewayV1.ReaderLink.methods).map(\.method)
    }

    /// Starts the loops, the internal listener (replica link), joins the node
    /// registry, then opens the TLS port; returns the bound address.
    @discardableResult
    public func start() async throws -> SocketAddress {
        let group = try EventLoopGroup(loopCount: max(1, listener.loopCount))
        let gateway = self.gateway
        gateway.loops.set(group)
        do {
            let advertisedHost = try self.advertisedHost()
            let internalServer = try await startInternalListener(group: group, advertising: advertisedHost)
            let server: TLSServer
            let address: SocketAddress
            let advertised: String
            do {
                guard let port = internalServer.localAddress?.port else { throw InternalCertificateError("the internal listener has no bound port") }
                advertised = GatewayAddress(host: advertisedHost, port: port).description
                // Registered before the first reader can attach (an attach names this node).
                try await gateway.cluster.register(node: gateway.node.id, internalAddress: advertised)
                logger.notice("node registered", ["node": gateway.node.id, "internal": advertised, "version": GatewayVersion.current.description])
                await logReleasesAlongside()
                server = try startPublicListener(group: group)
                address = try server.start()
            } catch {
                await internalServer.shutdown(gracePeriod: .zero)
                throw error
            }
            let background = Task { await gateway.runBackground(advertisedAddress: advertised) }
            running.withLock { $0 = Running(group: group, server: server, internalServer: internalServer, background: background) }
            logger.info("gateway listening", [
                "address": address.description, "internal": advertised, "node": gateway.node.id,
                "reader_ca": listener.readerCAPath ?? "none",
            ])
            return address
        } catch {
            gateway.loops.set(nil)
            await group.shutdown()
            throw error
        }
    }

    /// The replica link listener: only clients with a certificate from the
    /// cluster's internal CA get through the handshake.
    private func startInternalListener(group: EventLoopGroup, advertising advertisedHost: String) async throws -> TLSServer {
        let configuration = listener.internalListener
        let directory = configuration.certificateDirectory
            ?? (NSTemporaryDirectory() as NSString).appendingPathComponent("reader-gateway-internal-\(getpid())-\(ObjectIdentifier(self).hashValue & 0xffff)")
        let certificates = try await InternalCertificates.prepare(
            cluster: gateway.cluster, nodeID: gateway.node.id, advertiseAddress: advertisedHost, directory: directory
        )
        gateway.replicas.configure(certificates)
        let server = CallServer(
            router: gateway.replicaRoutes,
            connectionConfiguration: ConnectionConfiguration(role: .server),
            metrics: GatewayCallMetrics(metrics: gateway.metrics)
        )
        var limits = ConnectionLimits()
        limits.idleTimeout = nil
        var tls = TLSServerConfiguration(
            host: configuration.host, port: configuration.port, certificates: [certificates.server],
            clientAuthentication: .required(trustedCAPath: certificates.caPath),
            alpnProtocols: [GatewayServiceHost.alpnProtocol],
            limits: limits
        )
        tls.sessionTickets = 0
        let listener = try TLSServer(configuration: tls, group: group) { connection in server.makeConnection(connection) }
        _ = try listener.start()
        return listener
    }

    private func startPublicListener(group: EventLoopGroup) throws -> TLSServer {
        let gateway = self.gateway
        var webSocket = listener.webSocket
        webSocket.http = GatewayHTTPResponder(console: ConsoleService(database: gateway.database, metrics: gateway.metrics))
        let server = CallServer(
            router: gateway.routes,
            connectionConfiguration: ConnectionConfiguration(role: .server, maxQueuedBytesPerStream: listener.maxQueuedBytesPerCall),
            metrics: GatewayCallMetrics(metrics: gateway.metrics),
            webSocket: webSocket,
            connectionClosed: { gateway.connectionClosed($0) }
        )
        var limits = ConnectionLimits()
        limits.idleTimeout = nil
        limits.maxHandshaking = listener.maxHandshaking
        limits.maxHandshakingPerSource = listener.maxHandshakingPerSource
        var configuration = TLSServerConfiguration(
            host: listener.host, port: listener.port, certificates: [listener.certificate],
            clientAuthentication: listener.readerCAPath.map { .optional(trustedCAPath: $0) } ?? .none,
            // Browsers offer h2 and http/1.1 (the WebSocket binding is HTTP/1.1); a client
            // offering neither protocol is refused in the handshake.
            alpnProtocols: [GatewayServiceHost.alpnProtocol, GatewayServiceHost.httpAlpnProtocol],
            limits: limits
        )
        // No TLS 1.3 session tickets: the transport clears SSL_MODE_AUTO_RETRY, so a
        // client whose SSL_read consumes a ticket gets WANT_READ with the server's
        // first frames already read from the socket, and (epoll being edge
        // triggered) never sees them. Lanes and readers keep one long connection,
        // so resumption buys little.
        configuration.sessionTickets = 0
        return try TLSServer(configuration: configuration, group: group) { connection in server.makeConnection(connection) }
    }

    /// The host other replicas dial (and the internal certificate names), checked before
    /// anything starts: a wildcard bind needs an explicit advertise address.
    private func advertisedHost() throws -> String {
        let configuration = listener.internalListener
        let host = configuration.advertiseAddress ?? configuration.host
        guard host != "0.0.0.0", host != "::" else {
            throw InternalCertificateError("--advertise-address is required when the internal listener binds \(host): other replicas must know where to dial")
        }
        return host
    }

    /// The bound address once started.
    public var localAddress: SocketAddress? { running.withLock { $0?.server.localAddress } }

    /// Stops accepting, says GOAWAY to every connection, waits up to
    /// `gracePeriod`, then leaves the node registry and stops the loops.
    public func shutdown(gracePeriod: Duration = .seconds(5)) async {
        guard let running = running.withLock({ state -> Running? in
            let taken = state
            state = nil
            return taken
        }) else { return }
        gateway.readerLink.handingOver.store(true, ordering: .relaxed)
        await running.server.shutdown(gracePeriod: gracePeriod)
        running.background.cancel()
        await running.background.value
        await gateway.replicas.closeAll()
        await running.internalServer.shutdown(gracePeriod: .milliseconds(200))
        // Leaving detaches this node's links in one statement; readers that re-attach keep their owners.
        do { try await gateway.cluster.deregister(node: gateway.node.id) } catch {
            logger.warning("could not leave the node registry; the others reap this node after its lease", ["error": error])
        }
        gateway.loops.set(nil)
        await running.group.shutdown()
    }
}
