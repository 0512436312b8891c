import GatewayCore
import GatewayTransport
import GatewayChannel
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
        try await ClientChannel.connect(configuration, over: InMemoryConnector(server: server, loop: loop, peer: peer, verifiedClientIdentity: verifiedClientIdentity))
    }
}

/// One channel's connection to the server: a pipe on the server's loop, its client end
/// reported to the channel as the transport protocol's connection.
struct InMemoryConnector: ClientTransport {
    let server: CallServer
    let loop: EventLoop
    let peer: String
    let verifiedClientIdentity: String?

    func makeExecutor() -> EventLoopExecutor {
        EventLoopExecutor(loop: loop)
    }

    func connect(_ configuration: ClientChannelConfiguration, on executor: EventLoopExecutor, delegate: any ClientTransportDelegate) {
        let (loop, peer, verifiedClientIdentity) = (self.loop, self.peer, self.verifiedClientIdentity)
        let connection = server.makeConnection(on: loop)
        let ends = InMemoryPipeEnd.pair(on: loop, names: (client: peer, server: "in-memory server"))
        loop.execute {
            ends.server.handler = connection
            ends.client.handler = ChannelDelegateHandler(delegate: delegate)
            connection.transportActive(ends.server, peer: peer, verifiedClientIdentity: verifiedClientIdentity, info: nil)
            delegate.transportActive(ends.client, info: ChannelConnectionInfo(peer: ends.client.peerName))
        }
    }
}

/// The pipe's callbacks to its client end, forwarded to the channel.
final class ChannelDelegateHandler: TransportHandler, Sendable {
    let delegate: any ClientTransportDelegate

    init(delegate: any ClientTransportDelegate) {
        self.delegate = delegate
    }

    func transportActive(_ transport: any ConnectionTransport, peer: String, verifiedClientIdentity: String?, info: ConnectionInfo?) {}

    func transportReceived(_ bytes: UnsafeRawBufferPointer) {
        delegate.transportReceived(bytes)
    }

    func transportClosed(_ reason: CloseReason, peer: String) {
        delegate.transportClosed(ClientTransportCloseReason(reason))
    }
}
