import GatewayCore
import GatewayOperations
import GatewayStore
import GatewayTransport
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

    public init(host: String, port: Int, certificate: CertificateKeyPair, readerCAPath: String? = nil, loopCount: Int = 2) {
        self.host = host
        self.port = port
        self.certificate = certificate
        self.readerCAPath = readerCAPath
        self.loopCount = loopCount
    }
}

/// The running gateway service: event loops, the TLS listener, the services and
/// their sweeper. `start()` brings it up, `shutdown(gracePeriod:)` takes it down
/// in reverse order.
public final class GatewayServiceHost: Sendable {
    public let listener: GatewayListenerConfiguration
    let gateway: Gateway
    let running = Mutex<Running?>(nil)
    private let logger = Logger(component: "service")

    struct Running: Sendable {
        var group: EventLoopGroup
        var server: TLSServer
        var sweeper: Task<Void, Never>
    }

    public init(listener: GatewayListenerConfiguration, service: ServiceConfiguration, client: PostgresClient, metrics: GatewayMetrics) {
        self.listener = listener
        self.gateway = Gateway(client: client, configuration: service, metrics: metrics)
    }

    /// The ALPN protocol of the gateway's port (clients may offer it; none is fine too).
    public static let alpnProtocol = "reader-gateway/1"

    /// The method names of every surface (for ``GatewayMetrics/init(callMethods:version:includeProcessMetrics:)``).
    public static var methodNames: [String] {
        (ReaderGatewayV1.Sdk.methods + ReaderGatewayV1.FleetAdmin.methods + ReaderGatewayV1.ReaderLink.methods).map(\.method)
    }

    /// Starts the loops, the listener and the sweeper; returns the bound address.
    @discardableResult
    public func start() throws -> SocketAddress {
        let group = try EventLoopGroup(loopCount: max(1, listener.loopCount))
        let gateway = self.gateway
        let router = CallRouter(
            routes: gateway.routes,
            connectionConfiguration: ConnectionConfiguration(role: .server),
            metrics: gateway.metrics,
            connectionClosed: { gateway.connectionClosed($0) }
        )
        var limits = ConnectionLimits()
        limits.idleTimeout = nil
        var configuration = TLSServerConfiguration(
            host: listener.host, port: listener.port, certificates: [listener.certificate],
            clientAuthentication: listener.readerCAPath.map { .optional(trustedCAPath: $0) } ?? .none,
            alpnProtocols: [GatewayServiceHost.alpnProtocol],
            limits: limits
        )
        // No TLS 1.3 session tickets: the transport clears SSL_MODE_AUTO_RETRY, so a
        // client whose SSL_read consumes a ticket gets WANT_READ with the server's
        // first frames already read from the socket, and (epoll being edge
        // triggered) never sees them. Lanes and readers keep one long connection,
        // so resumption buys little.
        configuration.sessionTickets = 0
        let server: TLSServer
        do {
            server = try TLSServer(configuration: configuration, group: group) { connection in router.makeConnection(connection) }
        } catch {
            group.syncShutdown()
            throw error
        }
        let address: SocketAddress
        do { address = try server.start() } catch {
            group.syncShutdown()
            throw error
        }
        let sweeper = Task { await gateway.runSweeper() }
        running.withLock { $0 = Running(group: group, server: server, sweeper: sweeper) }
        logger.info("gateway listening", ["address": address.description, "reader_ca": listener.readerCAPath ?? "none"])
        return address
    }

    /// The bound address once started.
    public var localAddress: SocketAddress? { running.withLock { $0?.server.localAddress } }

    /// Stops accepting, says GOAWAY to every connection, waits up to
    /// `gracePeriod`, then stops the sweeper and the loops.
    public func shutdown(gracePeriod: Duration = .seconds(5)) async {
        guard let running = running.withLock({ state -> Running? in
            let taken = state
            state = nil
            return taken
        }) else { return }
        await running.server.shutdown(gracePeriod: gracePeriod)
        running.sweeper.cancel()
        await running.group.shutdown()
    }
}
