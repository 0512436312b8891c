import GatewayCore
import GatewayTransport
import GatewayWire
import Synchronization

/// A connection to the gateway that carries many concurrent calls.
///
/// One TLS connection, one client-role ``FrameConnection``; calls are multiplexed as
/// streams. Unary, server-streaming and bidirectional calls; deadlines; Task cancellation
/// sends CANCEL; keepalive pings; GOAWAY lets calls in flight finish and fails new ones
/// with a retryable `UNAVAILABLE` / `GOING_AWAY`. Every failure is an ``RPCError``.
///
/// ```swift
/// let channel = try await ClientChannel.connect(ClientChannelConfiguration(host: "127.0.0.1", port: 7443, trustedCAPath: "ca.pem"))
/// let response = try await channel.unary(ReaderGatewayV1.Sdk.openSession, request, timeout: .seconds(5))
/// ```
public final class ClientChannel: Sendable {
    /// Where it connected.
    public let configuration: ClientChannelConfiguration
    let handler: ChannelHandler

    init(configuration: ClientChannelConfiguration, handler: ChannelHandler) {
        self.configuration = configuration
        self.handler = handler
    }

    /// Connects and completes the TLS handshake.
    ///
    /// - Parameter group: the event loops to run on; nil uses one loop shared by every
    ///   channel of the process.
    /// - Throws: ``RPCError`` `UNAVAILABLE` / `CONNECTION_LOST` saying why (refused, certificate
    ///   rejected, handshake timeout), or the transport's configuration error (bad CA path).
    public static func connect(_ configuration: ClientChannelConfiguration, group: EventLoopGroup? = nil) async throws -> ClientChannel {
        let context = try TLSContext(client: configuration.tlsConfiguration)
        let loop = try (group ?? SharedEventLoopGroup.get()).next()
        let logger = Logger(component: "client").with("gateway", "\(configuration.host):\(configuration.port)")
        let handler = ChannelHandler(loop: loop, configuration: configuration.connectionConfiguration, logger: logger)
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            handler.shared.withLock { $0.connectContinuation = continuation }
            TLSClient.connect(
                host: configuration.host, port: configuration.port, serverName: configuration.serverName,
                context: context, limits: configuration.tlsConfiguration.limits, on: loop
            ) { _ in handler }
        }
        return ClientChannel(configuration: configuration, handler: handler)
    }

    /// Where the channel is in its life.
    public var state: ChannelState { handler.state }

    /// What the TLS handshake produced (ALPN, version, cipher).
    public var connectionInfo: ConnectionInfo? { handler.shared.withLock { $0.info } }

    /// The round trip of the last answered PING, if any.
    public var lastPingRoundTrip: Duration? { handler.shared.withLock { $0.lastPingRoundTrip } }

    /// Sends a PING now (at most one outstanding); see ``lastPingRoundTrip``.
    public func ping() {
        let handler = self.handler
        handler.loop.execute { handler.ping() }
    }

    /// Waits until the connection is gone and returns why.
    public func waitUntilClosed() async -> RPCError {
        await withCheckedContinuation { (continuation: CheckedContinuation<RPCError, Never>) in
            let closed = handler.shared.withLock { shared -> RPCError? in
                if shared.transportGone, case .closed(let error) = shared.state { return error }
                shared.closeWaiters.append(continuation)
                return nil
            }
            if let closed { continuation.resume(returning: closed) }
        }
    }

    /// Sends GOAWAY: calls in flight finish, new ones fail; the connection then closes.
    public func shutdownGracefully() {
        let handler = self.handler
        handler.loop.execute { handler.shutdownGracefully() }
    }

    /// Closes now; open calls fail with `CANCELLED`.
    public func close() {
        let handler = self.handler
        handler.loop.execute {
            handler.close(error: RPCError(code: .cancelled, reason: .cancelledByPeer, message: "the channel was closed by its owner"))
        }
    }

    deinit {
        let handler = self.handler
        handler.loop.execute {
            handler.close(error: RPCError(code: .cancelled, reason: .cancelledByPeer, message: "the channel was released"))
        }
    }
}

/// The event loop group channels use when given none: one loop, started on first use.
enum SharedEventLoopGroup {
    private static let group = Mutex<EventLoopGroup?>(nil)

    static func get() throws -> EventLoopGroup {
        try group.withLock { slot in
            if let existing = slot { return existing }
            let made = try EventLoopGroup(loopCount: 1)
            slot = made
            return made
        }
    }
}
