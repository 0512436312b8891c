import GatewayWebSocket

/// How a server's port carries the protocol over WebSocket (PROTOCOL.md section 15):
/// which browser origins may upgrade, where the browser library is served, what answers
/// plain HTTP, and the time
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
    /// Answers the plain HTTP on the port (the browser library's files, the fleet console's
    /// pages and session); nil: plain GETs under ``libraryPrefix`` are answered 404, and no
    /// other request is HTTP.
    public var http: (any PlainHTTPResponder)?

    public init(
        origins: OriginAllowList = .none, handshakeTimeout: Duration = .seconds(10), closeTimeout: Duration = .seconds(2),
        http: (any PlainHTTPResponder)? = nil
    ) {
        self.origins = origins
        self.handshakeTimeout = handshakeTimeout
        self.closeTimeout = closeTimeout
        self.http = http
    }

    /// The session of one connection whose frames may be up to `maxFrameSize` payload bytes.
    func makeSession(maxFrameSize: Int) -> WebSocketServerSession {
        WebSocketServerSession(
            handshake: WebSocketHandshakeConfiguration(origins: origins, plainGetPrefix: Self.libraryPrefix),
            connection: .init(maxMessageSize: maxFrameSize + WebSocketBinding.frameHeaderSize)
        )
    }
}
