import CGatewayLinux
import CGatewayOpenSSL
import Dispatch
import GatewayCore
import Glibc
import Synchronization

/// A TLS server: one listening socket per event loop (`SO_REUSEPORT`, so the kernel spreads
/// accepted connections over the loops), a handler per connection, limits, certificate reload
/// and graceful shutdown.
///
/// ```swift
/// let server = try TLSServer(configuration: configuration, group: group) { connection in
///     EchoHandler()
/// }
/// try server.start()
/// // on SIGHUP:  try server.reloadCertificates()
/// // on SIGTERM: await server.shutdown(gracePeriod: .seconds(10))
/// ```
public final class TLSServer: Sendable {
    /// Creates the handler of a newly accepted connection, on that connection's loop.
    public typealias HandlerFactory = @Sendable (TLSConnection) -> any ConnectionHandler

    public let configuration: TLSServerConfiguration
    public let group: EventLoopGroup
    let factory: HandlerFactory
    let counters = ServerCounters()
    private let context: Mutex<TLSContext>
    private let state = Mutex<ServerState>(ServerState())
    let refusedConnections = Atomic<Int>(0)
    let logger = Logger(component: "transport")

    private struct ServerState: Sendable {
        var listeners: [Listener] = []
        var localAddress: SocketAddress?
        var accepting = false
    }

    /// Loads the certificates (failing with a clear error on missing or mismatched files).
    public init(configuration: TLSServerConfiguration, group: EventLoopGroup, handlerFactory: @escaping HandlerFactory) throws {
        self.configuration = configuration
        self.group = group
        self.factory = handlerFactory
        self.context = Mutex(try TLSContext(server: configuration))
    }

    /// Binds and starts accepting on every loop; returns the bound address.
    @discardableResult
    public func start() throws -> SocketAddress {
        var address = try SocketAddress(host: configuration.host, port: configuration.port)
        var listeners: [Listener] = []
        for loop in group.loops {
            let fd = rg_tcp_listen(&address.storage, address.length, configuration.backlog, 1)
            guard fd >= 0 else {
                let error = rg_errno()
                for listener in listeners { listener.closeFromAnyThread() }
                throw TransportError(
                    .socket,
                    "could not listen on \(address): \(OpenSSLErrors.errnoText(error)); is another process using the port?"
                )
            }
            if address.port == 0 {
                var bound = sockaddr_storage()
                _ = rg_local_address(fd, &bound)
                address = SocketAddress(storage: bound)
            }
            let listener = Listener(fd: fd, loop: loop, server: self, share: group.loops.count)
            listeners.append(listener)
        }
        for listener in listeners { listener.startFromAnyThread() }
        state.withLock {
            $0.listeners = listeners
            $0.localAddress = address
            $0.accepting = true
        }
        logger.info("listening", ["address": address.description, "loops": group.loops.count])
        return address
    }

    /// The bound address once ``start()`` returned.
    public var localAddress: SocketAddress? { state.withLock { $0.localAddress } }

    /// Connections open now (in handshake or active).
    public var connectionCount: Int { counters.connections.load(ordering: .relaxed) }

    /// Connections in the TLS handshake now.
    public var handshakingCount: Int { counters.handshaking.load(ordering: .relaxed) }

    /// Connections refused because of the connection cap since start.
    public var refusedCount: Int { refusedConnections.load(ordering: .relaxed) }

    /// Connections closed in their handshake to make room for newer ones since start
    /// (``CloseReason/handshakeEvicted``).
    public var evictedCount: Int { counters.evicted.load(ordering: .relaxed) }

    /// The context new connections start with.
    var currentContext: TLSContext { context.withLock { $0 } }

    /// Reloads certificates and keys from the configured files (call it on SIGHUP).
    ///
    /// New connections use the new certificates; open connections are untouched. If a file is
    /// missing or a key does not match, the old certificates stay in place and the error is thrown.
    public func reloadCertificates() throws {
        let fresh = try TLSContext(server: configuration)
        context.withLock { $0 = fresh }
        logger.notice("certificates reloaded", ["files": configuration.certificates.map(\.certificateChainPath).joined(separator: ",")])
    }

    /// The first step of a graceful shutdown, without waiting: stop accepting and ask every
    /// handler to say goodbye (``ConnectionHandler/shutdownRequested(on:)``). The connections
    /// close as their calls end; ``shutdown(gracePeriod:)`` waits for them and closes the rest.
    public func beginShutdown() {
        let listeners = state.withLock { state -> [Listener] in
            state.accepting = false
            counters.shuttingDown.store(true, ordering: .relaxed)
            let taken = state.listeners
            state.listeners = []
            return taken
        }
        for listener in listeners { listener.closeFromAnyThread() }
        for loop in group.loops {
            loop.execute { [self] in
                for case let connection as TLSConnection in loop.registeredObjects() where connection.counters === counters {
                    connection.shutdownRequested()
                }
            }
        }
    }

    /// Graceful shutdown: stop accepting, ask every handler to say goodbye
    /// (``ConnectionHandler/shutdownRequested(on:)``), wait until all connections closed or the
    /// grace period ended, then close what remains. Returns whether every connection closed
    /// within the grace period (false: some were closed by force).
    @discardableResult
    public func shutdown(gracePeriod: Duration) async -> Bool {
        beginShutdown()
        let drained = counters.latchWhenEmpty()
        let closedInTime = await drained.wait(atMost: gracePeriod)
        if !closedInTime {
            logger.warning("grace period over; closing remaining connections", ["count": connectionCount])
            for loop in group.loops {
                loop.execute { [self] in
                    for case let connection as TLSConnection in loop.registeredObjects() where connection.counters === counters {
                        connection.finish(.shutdown)
                    }
                }
            }
            _ = await drained.wait(atMost: .seconds(2))
        }
        return closedInTime
    }
}

extension TLSConnection {
    /// The server is going away: in handshake, close at once; active, ask the handler.
    func shutdownRequested() {
        switch state {
        case .connecting, .handshaking: finish(.shutdown)
        case .active: handler?.shutdownRequested(on: self)
        case .closing, .closed: break
        }
    }
}
