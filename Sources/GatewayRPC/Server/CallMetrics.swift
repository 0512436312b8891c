import GatewayChannel
import GatewayWire

/// What the call layer counts, supplied by whoever serves (the gateway feeds its metrics
/// collection): calls by method and status, connections moved between loops, WebSocket
/// upgrades and refusals. Called from the event loops; each must be cheap and must not block.
public protocol CallMetrics: Sendable {
    /// What counts a call of `method` (the method's name, the last part of its path) that
    /// ended OK: asked once per route, then called at every OK end without a lookup.
    func okCallCounter(method: String) -> @Sendable () -> Void
    /// Counts a call of `method` that ended with `status` (not OK); `method` is `other`
    /// for a path no route serves.
    func callEnded(method: String, status: ReaderGatewayV1.StatusCode)
    /// Counts a connection moved to another event loop (``ServerConnection/follow(_:)``).
    func connectionMoved()
    /// Counts a WebSocket upgrade accepted.
    func webSocketUpgraded()
    /// Counts a WebSocket upgrade refused; `kind` is the refusal's kind
    /// (`WebSocketServerSession`'s rejection: `origin`, `path`, `malformed`, ...).
    func webSocketRefused(kind: String)
}
