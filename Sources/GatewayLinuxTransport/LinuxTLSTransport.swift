import GatewayChannel
import GatewayCore
import GatewayTransport
import Synchronization

/// The client's transport on Linux: TLS on OpenSSL over the epoll event loop
/// (`GatewayTransport`), one loop of `group` per connection.
///
/// ```swift
/// let channel = try await ClientChannel.connect(configuration, over: LinuxTLSTransport())
/// ```
public struct LinuxTLSTransport: ClientTransport {
    /// The event loops to run on; nil uses one loop shared by every channel of the process.
    public let group: EventLoopGroup?
    /// Where the TLS session of each connection is kept and offered again on the next one (a
    /// reader re-attaching resumes instead of making a full handshake); nil: none kept.
    public let sessions: TLSSessionCache?

    public init(group: EventLoopGroup? = nil, sessions: TLSSessionCache? = nil) {
        self.group = group
        self.sessions = sessions
    }

    public func makeExecutor() throws -> EventLoopExecutor {
        EventLoopExecutor(loop: try (group ?? SharedEventLoopGroup.get()).next())
    }

    public func connect(_ configuration: ClientChannelConfiguration, on executor: EventLoopExecutor, delegate: any ClientTransportDelegate) throws {
        let tls = configuration.tlsConfiguration
        let context = try TLSContext(client: tls)
        let bridge = TLSChannelBridge(delegate: delegate)
        TLSClient.connect(
            host: configuration.host, port: configuration.port, serverName: configuration.serverName,
            context: context, limits: tls.limits, sessions: sessions, on: executor.loop
        ) { _ in bridge }
    }
}

/// An event loop as a channel's executor.
public struct EventLoopExecutor: ChannelExecutor {
    public let loop: EventLoop

    public init(loop: EventLoop) {
        self.loop = loop
    }

    public func execute(_ work: @escaping @Sendable () -> Void) {
        loop.execute(work)
    }

    public func schedule(after delay: Duration, _ work: @escaping @Sendable () -> Void) -> any ChannelTimer {
        EventLoopTimer(task: loop.schedule(after: delay, work))
    }
}

/// A loop's scheduled task as a channel's timer.
struct EventLoopTimer: ChannelTimer {
    let task: ScheduledTask

    func cancel() { task.cancel() }
}

extension TLSConnection: ClientTransportConnection {}

/// The TLS connection's callbacks (loop thread), forwarded to the channel as the transport protocol's.
final class TLSChannelBridge: ConnectionHandler, Sendable {
    let delegate: any ClientTransportDelegate

    init(delegate: any ClientTransportDelegate) {
        self.delegate = delegate
    }

    func connectionActive(_ connection: TLSConnection, info: ConnectionInfo) {
        delegate.transportActive(connection, info: ChannelConnectionInfo(peer: info.peer, alpn: info.alpn, tlsVersion: info.tlsVersion, cipher: info.cipher))
    }

    func bytesReceived(_ bytes: UnsafeRawBufferPointer, on connection: TLSConnection) {
        delegate.transportReceived(bytes)
    }

    func buffersReleased(on connection: TLSConnection) {
        delegate.transportIdle()
    }

    func connectionClosed(_ reason: CloseReason, on connection: TLSConnection) {
        delegate.transportClosed(ClientTransportCloseReason(reason))
    }
}

extension ClientTransportCloseReason {
    /// How the channel reports a TLS connection's end.
    package init(_ reason: CloseReason) {
        switch reason {
        case .connectFailed(let error), .handshakeFailed(let error), .ioError(let error):
            self = .failed(message: error.message, cause: error.cause)
        case .handshakeTimeout:
            self = .failed(message: "the TLS handshake with the gateway did not finish in time; is the address a ReaderGateway TLS port?", cause: nil)
        case .closedLocally:
            self = .closedLocally
        default:
            self = .closedByPeer(detail: "\(reason)")
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
