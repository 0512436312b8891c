import GatewayTransport

/// What a connection's frames ride on: the byte pipe under a ``ServerConnection`` or a
/// ``ClientChannel``. A TLS connection (``TLSConnection`` conforms) or one end of an in-memory
/// pipe (``InMemoryTransport``). Every method is called on the connection's event loop.
public protocol ConnectionTransport: AnyObject, Sendable {
    /// Queues `bytes` for the peer, after what was written before; false: the transport is
    /// closing and dropped them.
    func write(_ bytes: [UInt8]) -> Bool
    /// Closes after what was written (graceful) or at once; the connection hears it later,
    /// on its loop (``TransportHandler/transportClosed(_:peer:)``).
    func close(graceful: Bool)
    /// Whether the connection may move to another event loop now (``move(to:then:)``).
    var isMovable: Bool { get }
    /// Moves the connection to `target`; `then` runs there once it arrived. False: not moved.
    func move(to target: EventLoop, then: @escaping @Sendable () -> Void) -> Bool
}

extension TLSConnection: ConnectionTransport {}

/// What drives a connection's frames over a ``ConnectionTransport`` and hears it: a
/// ``ServerConnection`` or a client channel's handler. Called on the connection's loop, one
/// call at a time. The TLS transport reaches it through `ConnectionHandler`, whose callbacks
/// forward here; the in-memory pipe calls it directly.
protocol TransportHandler: AnyObject, Sendable {
    /// The transport is ready: who the peer is (TLS details when the transport is TLS).
    func transportActive(_ transport: any ConnectionTransport, peer: String, verifiedClientIdentity: String?, info: ConnectionInfo?)
    /// Bytes arrived; the buffer is valid only during the call.
    func transportReceived(_ bytes: UnsafeRawBufferPointer)
    /// The transport is gone (the last call); `peer` names it for the log.
    func transportClosed(_ reason: CloseReason, peer: String)
}
