import GatewayCore
import GatewayTransport
import GatewayWire

/// Serves a ``CallServer`` to ``ClientChannel``s of this process with no socket and no TLS:
/// each channel talks to a ``ServerConnection`` of the server through an in-memory pipe on
/// one event loop. The server side is the one TLS carries (the same connection, frame state
/// machine, routes, calls, deadlines and cancellation); only the bytes travel differently.
///
/// ```swift
/// var router = MethodRouter()
/// service.registerMethods(with: &router)
/// let transport = InMemoryTransport(serving: CallServer(router: router, metrics: metrics), on: loop)
/// let channel = try await transport.connect()
/// let response = try await channel.unary(ReaderGatewayV1.Sdk.openSession, request)
/// ```
public struct InMemoryTransport: Sendable {
    /// What the channels call.
    public let server: CallServer
    /// The loop both ends of every pipe, and the server's connections, run on.
    public let loop: EventLoop

    public init(serving server: CallServer, on loop: EventLoop) {
        self.server = server
        self.loop = loop
    }

    /// A channel connected to the server through a pipe of its own.
    ///
    /// - Parameters:
    ///   - configuration: the channel's settings and keepalive (its host, port and TLS settings are not used).
    ///   - peer: the client's address as the server's calls see it (``CallContext/peer``).
    ///   - verifiedClientIdentity: the identity a client certificate would have proven
    ///     (``CallContext/verifiedClientIdentity``); nil: none.
    public func connect(
        _ configuration: ClientChannelConfiguration = ClientChannelConfiguration(host: "in-memory", port: 0),
        peer: String = "in-memory",
        verifiedClientIdentity: String? = nil
    ) async throws -> ClientChannel {
        let loop = self.loop
        let logger = Logger(component: "client").with("gateway", "in-memory")
        let handler = ChannelHandler(loop: loop, configuration: configuration.connectionConfiguration, logger: logger)
        let connection = server.makeConnection(on: loop)
        let ends = InMemoryPipeEnd.pair(on: loop, names: (client: peer, server: "in-memory server"))
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            handler.shared.withLock { $0.connectContinuation = continuation }
            loop.execute {
                ends.server.handler = connection
                ends.client.handler = handler
                connection.transportActive(ends.server, peer: peer, verifiedClientIdentity: verifiedClientIdentity, info: nil)
                handler.transportActive(ends.client, peer: ends.client.peerName, verifiedClientIdentity: nil, info: nil)
            }
        }
        return ClientChannel(configuration: configuration, handler: handler)
    }
}
