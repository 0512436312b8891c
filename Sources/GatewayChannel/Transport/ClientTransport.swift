/// Opens byte connections to the gateway for ``ClientChannel``s: the one seam between the
/// platform-neutral client and a platform's sockets.
///
/// A transport supplies two things per connection: a serial ``ChannelExecutor`` (where the
/// channel's state lives, with timers for keepalive and deadlines) and the byte stream
/// itself, reported to a ``ClientTransportDelegate`` on that executor. On Linux,
/// `LinuxTLSTransport` (module `GatewayLinuxTransport`) is TLS on OpenSSL over the epoll loop;
/// on Apple platforms an app supplies one on Network.framework (docs/client.md sketches it);
/// tests join the channel to a scripted server in memory.
///
/// The channel speaks the gateway's framing over the bytes; the transport only carries them
/// (TLS included: the gateway requires TLS with ALPN `reader-gateway/1`,
/// ``ClientChannelConfiguration/alpnProtocols``).
public protocol ClientTransport: Sendable {
    associatedtype Executor: ChannelExecutor

    /// The executor the next connection's callbacks, and its channel's state, run on.
    func makeExecutor() throws -> Executor

    /// Starts connecting to `configuration`'s gateway. On `executor`, one at a time, the
    /// delegate then hears ``ClientTransportDelegate/transportActive(_:info:)`` once the
    /// connection is ready (TLS handshake done), the bytes received, and last
    /// ``ClientTransportDelegate/transportClosed(_:)`` (also when connecting failed).
    ///
    /// - Throws: a configuration error found before any I/O (an unreadable CA file, say);
    ///   the channel's connect throws it unchanged.
    func connect(_ configuration: ClientChannelConfiguration, on executor: Executor, delegate: any ClientTransportDelegate) throws
}

/// A serial executor with timers: work submitted runs one item at a time, in order.
public protocol ChannelExecutor: Sendable {
    /// Runs `work` later on the executor (never inside this call).
    func execute(_ work: @escaping @Sendable () -> Void)
    /// Runs `work` on the executor once `delay` has passed, unless cancelled first.
    func schedule(after delay: Duration, _ work: @escaping @Sendable () -> Void) -> any ChannelTimer
}

/// A timer of a ``ChannelExecutor``.
public protocol ChannelTimer: Sendable {
    /// The work does not run if it has not started (called on the executor).
    func cancel()
}

/// One open byte stream to the gateway. Its methods are called on its executor.
public protocol ClientTransportConnection: AnyObject, Sendable {
    /// Queues `bytes` after what was written before; false: the connection is closing and dropped them.
    func write(_ bytes: [UInt8]) -> Bool
    /// Closes after what was written (graceful) or at once; the delegate hears
    /// ``ClientTransportDelegate/transportClosed(_:)`` later, on the executor.
    func close(graceful: Bool)
}

/// What a transport reports to the channel it carries, on the connection's executor, one call at a time.
public protocol ClientTransportDelegate: AnyObject, Sendable {
    /// The connection is ready to carry bytes.
    func transportActive(_ connection: any ClientTransportConnection, info: ChannelConnectionInfo)
    /// Bytes arrived, in order; the buffer is valid only during the call.
    func transportReceived(_ bytes: UnsafeRawBufferPointer)
    /// The connection went quiet and released its buffers: the channel may release its own.
    func transportIdle()
    /// The connection is gone, or never opened: the last call.
    func transportClosed(_ reason: ClientTransportCloseReason)
}

/// What a connection reports of itself once ready.
public struct ChannelConnectionInfo: Sendable, Hashable {
    /// The gateway as the transport names it (`host:port`).
    public var peer: String
    /// The ALPN protocol both sides agreed on, if any.
    public var alpn: String?
    /// The negotiated TLS version, e.g. `TLSv1.3`; nil when the transport does not say (in memory).
    public var tlsVersion: String?
    /// The negotiated cipher suite, if the transport says.
    public var cipher: String?

    public init(peer: String, alpn: String? = nil, tlsVersion: String? = nil, cipher: String? = nil) {
        self.peer = peer
        self.alpn = alpn
        self.tlsVersion = tlsVersion
        self.cipher = cipher
    }
}

/// Why a transport's connection ended, as the channel reports it.
public enum ClientTransportCloseReason: Sendable, Equatable {
    /// The channel closed it (``ClientTransportConnection/close(graceful:)``).
    case closedLocally
    /// The gateway ended the stream; `detail` says how, for the message (`closed by peer`).
    case closedByPeer(detail: String)
    /// Connecting, the handshake or I/O failed: what happened and what to do, and the
    /// platform's own error text, if any.
    case failed(message: String, cause: String?)
}
