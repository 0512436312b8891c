import GatewayTransport
import GatewayWebSocket

/// With `--websocket`: the binding of PROTOCOL.md section 15 (the upgrade, then one protocol
/// frame per binary message), each frame a client sends coming back as a message of its own.
/// The upstream of nginx proxying WebSocket in `make bench`.
///
/// `@unchecked Sendable`: the session is touched only on the connection's event loop.
final class WebSocketEchoHandler: ConnectionHandler, @unchecked Sendable {
    private var session = WebSocketServerSession(
        handshake: WebSocketHandshakeConfiguration(),
        connection: .init(maxMessageSize: 65536 + WebSocketBinding.frameHeaderSize)
    )

    func connectionActive(_ connection: TLSConnection, info: ConnectionInfo) {}

    func bytesReceived(_ bytes: UnsafeRawBufferPointer, on connection: TLSConnection) {
        perform(session.receive(bytes), on: connection)
    }

    private func perform(_ actions: [WebSocketServerSession.Action], on connection: TLSConnection) {
        for action in actions {
            switch action {
            case .write(let bytes):
                connection.write(bytes)
            case .protocolFrame(let frame):
                perform(session.sendProtocolBytes(frame), on: connection)
            case .closeTransport:
                connection.close(graceful: true)
            case .plainGet:
                connection.close(graceful: false)
            case .upgraded, .rejected, .peerClosed:
                break
            }
        }
    }

    func connectionClosed(_ reason: CloseReason, on connection: TLSConnection) {}
}
