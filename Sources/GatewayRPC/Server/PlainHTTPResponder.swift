import GatewayWebSocket

/// The plain HTTP a port answers beside the protocol's WebSocket binding, supplied by whoever
/// serves (the gateway: its browser library's files and its fleet console), so the call layer
/// holds no web files and no console. Set on ``WebSocketCarrierConfiguration/http``.
public protocol PlainHTTPResponder: Sendable {
    /// Whether a connection's first bytes start a request answered whole by ``respond(to:)``
    /// (true: the connection is HTTP, answered, then closed), do not (false: the WebSocket
    /// upgrade or raw frames), or are too few to tell (nil). Asked before anything else.
    func claims(_ firstBytes: [UInt8]) -> Bool?
    /// The whole response to a claimed request (in a task, off the loop); `peer` is the
    /// connection's remote address (`host:port`, the socket's: no forwarding header is trusted).
    func respond(to request: HTTPRequest, peer: String) async -> [UInt8]
    /// The whole response to a claimed request that did not parse (`status` and `message` say why).
    func refusal(status: Int, message: String) -> [UInt8]
    /// The whole response to a plain GET under ``WebSocketCarrierConfiguration/libraryPrefix``
    /// (`path` whole); `origins` are the port's allowed browser origins.
    func plainGet(_ path: String, origins: OriginAllowList) -> [UInt8]
    /// The session an accepted upgrade's cookie carries, for its calls
    /// (``CallContext/consoleSessionToken``); nil: none.
    func sessionToken(in upgrade: WebSocketUpgrade) -> String?
}
