import GatewayCore
import GatewayWire

/// A connection to the gateway that carries many concurrent calls.
///
/// One transport connection (TLS), one client-role ``FrameConnection``; calls are multiplexed
/// as streams. Unary, server-streaming and bidirectional calls; deadlines; Task cancellation
/// sends CANCEL; keepalive pings; GOAWAY lets calls in flight finish and fails new ones
/// with a retryable `UNAVAILABLE` / `GOING_AWAY`. Every failure is an ``RPCError``.
///
/// ```swift
/// let channel = try await ClientChannel.connect(ClientChannelConfiguration(host: "127.0.0.1", port: 7443, trustedCAPath: "ca.pem"), over: transport)
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

    /// Connects over `transport` (and, for TLS, completes the handshake).
    ///
    /// - Throws: ``RPCError`` `UNAVAILABLE` / `CONNECTION_LOST` saying why (refused, certificate
    ///   rejected, handshake timeout), or the transport's configuration error (bad CA path).
    public static func connect<Transport: ClientTransport>(_ configuration: ClientChannelConfiguration, over transport: Transport) async throws -> ClientChannel {
        let executor = try transport.makeExecutor()
        let logger = Logger(component: "client").with("gateway", "\(configuration.host):\(configuration.port)")
        let handler = ChannelHandler(executor: executor, configuration: configuration.connectionConfiguration, logger: logger)
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            handler.shared.withLock { $0.connectContinuation = continuation }
            do {
                try transport.connect(configuration, on: executor, delegate: handler)
            } catch {
                let waiting = handler.shared.withLock { shared in
                    defer { shared.connectContinuation = nil }
                    return shared.connectContinuation
                }
                waiting?.resume(throwing: error)
            }
        }
        return ClientChannel(configuration: configuration, handler: handler)
    }

    /// Where the channel is in its life.
    public var state: ChannelState { handler.state }

    /// What the transport reported once ready (peer; for TLS: ALPN, version, cipher).
    public var connectionInfo: ChannelConnectionInfo? { handler.shared.withLock { $0.info } }

    /// The round trip of the last answered PING, if any.
    public var lastPingRoundTrip: Duration? { handler.shared.withLock { $0.lastPingRoundTrip } }

    /// Sends a PING now (at most one outstanding); see ``lastPingRoundTrip``.
    public func ping() {
        let handler = self.handler
        handler.executor.execute { handler.ping() }
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
        handler.executor.execute { handler.shutdownGracefully() }
    }

    /// Closes now; open calls fail with `CANCELLED`.
    public func close() {
        let handler = self.handler
        handler.executor.execute {
            handler.close(error: RPCError(code: .cancelled, reason: .cancelledByPeer, message: "the channel was closed by its owner"))
        }
    }

    deinit {
        let handler = self.handler
        handler.executor.execute {
            handler.close(error: RPCError(code: .cancelled, reason: .cancelledByPeer, message: "the channel was released"))
        }
    }
}
