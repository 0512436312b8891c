/// What a server accepts in a WebSocket upgrade request.
public struct WebSocketHandshakeConfiguration: Sendable, Hashable {
    /// The only path (without query) that upgrades; any other path gets 404.
    public var path: String
    /// The subprotocol the client must offer in `Sec-WebSocket-Protocol`; the 101 names it.
    public var subprotocol: String
    /// Browser origins allowed to connect (403 otherwise).
    public var origins: OriginAllowList
    /// Largest request head (request line and headers, with their line ends) in bytes; a
    /// longer one gets 431, decided before more is buffered.
    public var maxHeadBytes: Int
    /// Most header fields in a request; more get 431.
    public var maxHeaderCount: Int
    /// A path prefix for plain GET requests (the browser library's files): such a request
    /// is handed to the server as ``WebSocketHandshake/OnReceive/plainGet(path:)`` instead
    /// of being refused. Nil: every request must be the upgrade.
    public var plainGetPrefix: String?

    public init(
        path: String = WebSocketBinding.path,
        subprotocol: String = WebSocketBinding.subprotocol,
        origins: OriginAllowList = .none,
        maxHeadBytes: Int = 8192,
        maxHeaderCount: Int = 64,
        plainGetPrefix: String? = nil
    ) {
        self.path = path
        self.subprotocol = subprotocol
        self.origins = origins
        self.maxHeadBytes = maxHeadBytes
        self.maxHeaderCount = maxHeaderCount
        self.plainGetPrefix = plainGetPrefix
    }
}
