/// What the transport knows about a connection once its handshake finished.
public struct ConnectionInfo: Sendable, Hashable {
    /// The remote address, `host:port`.
    public var peer: String
    /// The verified client identity (the certificate subject's serialNumber, else its CN), when
    /// the client presented a certificate that verified against the configured CA.
    public var verifiedClientIdentity: String?
    /// The ALPN protocol both sides agreed on, if any.
    public var alpn: String?
    /// The negotiated protocol version, e.g. `TLSv1.3`.
    public var tlsVersion: String
    /// The negotiated cipher suite.
    public var cipher: String
    /// Whether the handshake resumed an earlier session (a TLS 1.3 ticket: no certificate
    /// exchange; the identity is the one verified when the session was made).
    public var resumed: Bool = false
}

/// Why a connection ended.
public enum CloseReason: Sendable, Equatable, CustomStringConvertible {
    /// This side called `close(graceful:)`.
    case closedLocally
    /// The peer sent close_notify.
    case closedByPeer
    /// The peer's TCP stream ended without close_notify (a truncation, or a crashed peer).
    case peerClosedAbruptly
    /// The TCP connection could not be established (client side).
    case connectFailed(TransportError)
    /// The TLS handshake failed; the error says why (certificate, protocol, alert).
    case handshakeFailed(TransportError)
    /// The handshake did not finish within `ConnectionLimits.handshakeTimeout`.
    case handshakeTimeout
    /// Closed in its handshake to make room for a newer connection: its listener, or its source
    /// address, had as many handshakes in flight as ``ConnectionLimits`` allows, and it was the
    /// oldest of them that had not sent a whole ClientHello (see the module's README).
    case handshakeEvicted
    /// Nothing was read or written within `ConnectionLimits.idleTimeout`.
    case idleTimeout
    /// The peer did not read and the write buffer passed its bound.
    case writeBufferOverflow
    /// The server's connection cap was reached.
    case connectionLimit
    /// The server or event loop shut down.
    case shutdown
    /// Reading or writing failed (reset by peer, TLS protocol error).
    case ioError(TransportError)

    public var description: String {
        switch self {
        case .closedLocally: "closed locally"
        case .closedByPeer: "closed by peer (close_notify)"
        case .peerClosedAbruptly: "peer closed the TCP stream without close_notify"
        case .connectFailed(let error): "connect failed: \(error)"
        case .handshakeFailed(let error): "handshake failed: \(error)"
        case .handshakeTimeout: "handshake timed out"
        case .handshakeEvicted: "closed in its handshake to make room for a newer connection (handshake cap)"
        case .idleTimeout: "idle timeout"
        case .writeBufferOverflow: "peer does not read: write buffer over its bound"
        case .connectionLimit: "connection limit reached"
        case .shutdown: "shutting down"
        case .ioError(let error): "I/O error: \(error)"
        }
    }
}

/// The per-connection object of the layer above: it receives bytes and events for one
/// connection, always on that connection's event loop thread, one call at a time.
///
/// Write with ``TLSConnection/write(_:)`` and close with ``TLSConnection/close(graceful:)``
/// from within these callbacks, or from another thread through
/// `connection.eventLoop.execute { ... }`.
public protocol ConnectionHandler: AnyObject {
    /// The handshake finished: the peer, its verified identity and the ALPN protocol are known.
    func connectionActive(_ connection: TLSConnection, info: ConnectionInfo)
    /// Decrypted bytes arrived. The buffer is valid only during the call (copy what you keep).
    func bytesReceived(_ bytes: UnsafeRawBufferPointer, on connection: TLSConnection)
    /// The write buffer passed its high-water mark (false) or drained below its low-water mark (true).
    func writabilityChanged(_ isWritable: Bool, on connection: TLSConnection)
    /// The server is shutting down gracefully: say goodbye, finish in-flight work, then close.
    /// The default closes gracefully at once.
    func shutdownRequested(on connection: TLSConnection)
    /// The connection is gone; the last call the handler receives. It can come without
    /// `connectionActive` when the handshake failed or timed out.
    func connectionClosed(_ reason: CloseReason, on connection: TLSConnection)
    /// The connection has been quiet for ``ConnectionLimits/releaseBuffersAfter`` and its TLS
    /// record buffers were released: release what the handler keeps per link between messages
    /// (buffers it would take again on the next one). The default keeps everything.
    func buffersReleased(on connection: TLSConnection)
}

extension ConnectionHandler {
    public func writabilityChanged(_ isWritable: Bool, on connection: TLSConnection) {}
    public func shutdownRequested(on connection: TLSConnection) { connection.close(graceful: true) }
    public func buffersReleased(on connection: TLSConnection) {}
}
