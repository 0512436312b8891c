import GatewayWebSocket

/// How the gateway's TLS port carries the protocol over WebSocket (PROTOCOL.md section 15):
/// which browser origins may upgrade, where the browser library is served, and the time
/// limits of the upgrade and of the closing handshake.
public struct WebSocketCarrierConfiguration: Sendable {
    /// The browser origins allowed to upgrade; clients that send no `Origin` always may.
    public var origins: OriginAllowList
    /// The path prefix of the browser library's files (a plain GET answers them).
    public static let libraryPrefix = "/readergateway/v1/js/"
    /// How long the upgrade request may take once its first bytes arrived; a connection
    /// that has not upgraded by then is closed without an answer.
    public var handshakeTimeout: Duration
    /// How long the gateway waits for the peer's close frame after sending its own.
    public var closeTimeout: Duration
    /// Answers the fleet console's HTTP requests (`/console...`: its pages and its session);
    /// nil: no console on this port.
    var console: (@Sendable (HTTPRequest) async -> [UInt8])?

    public init(origins: OriginAllowList = .none, handshakeTimeout: Duration = .seconds(10), closeTimeout: Duration = .seconds(2)) {
        self.origins = origins
        self.handshakeTimeout = handshakeTimeout
        self.closeTimeout = closeTimeout
        self.console = nil
    }

    /// The session of one connection whose frames may be up to `maxFrameSize` payload bytes.
    func makeSession(maxFrameSize: Int) -> WebSocketServerSession {
        WebSocketServerSession(
            handshake: WebSocketHandshakeConfiguration(origins: origins, plainGetPrefix: Self.libraryPrefix),
            connection: .init(maxMessageSize: maxFrameSize + WebSocketBinding.frameHeaderSize)
        )
    }
}
