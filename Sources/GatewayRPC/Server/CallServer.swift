import GatewayCore
import GatewayTransport
import GatewayChannel
import GatewayWire
import Synchronization

/// Serves the methods of a ``MethodRouter``: routes calls by method path and creates a
/// ``ServerConnection`` per connection, over TLS (``makeConnection(_:)``, the handler factory
/// of `TLSServer`) or in memory (``InMemoryTransport``).
public final class CallServer: Sendable {
    /// One routed method: its handler and its OK counter, looked up once. A class: every
    /// call keeps its route for its life (a reader's Attach call, for days), by reference.
    final class Route: Sendable {
        let handler: MethodHandler
        /// The method path: every call's ``CallContext/method`` shares this one string
        /// (the path read from each CALL_START would be a string of its own per call).
        let path: String
        /// The method name, the `method` the metrics count by.
        let label: String
        /// Counts an OK end of a call of this method (the common end, without a lookup).
        let okCalls: @Sendable () -> Void

        init(handler: MethodHandler, path: String, label: String, okCalls: @escaping @Sendable () -> Void) {
            self.handler = handler
            self.path = path
            self.label = label
            self.okCalls = okCalls
        }
    }

    let routes: [String: Route]
    /// The connections' frame configuration, held once for every connection's frame state machine.
    let sharedConnectionConfiguration: SharedConnectionConfiguration
    var connectionConfiguration: ConnectionConfiguration { sharedConnectionConfiguration.configuration }
    let metrics: any CallMetrics
    /// The WebSocket binding on this port; nil: raw frames only (the replica link).
    let webSocket: WebSocketCarrierConfiguration?
    let logger = Logger(component: "calls")
    /// Each event loop's buffer for the events of a read (see ``ServerConnection/receiveFrames(_:flushing:)``).
    let eventBuffers = LoopEventBuffers()
    private let nextConnectionID = Atomic<UInt64>(1)
    private let closedHandler: @Sendable (UInt64) -> Void

    /// - Parameters:
    ///   - router: the methods served, each with its handler.
    ///   - connectionConfiguration: every connection's frame settings (server role).
    ///   - metrics: what counts the calls and connections.
    ///   - webSocket: the WebSocket binding on the port (browsers); nil: raw frames only.
    ///   - connectionClosed: hears the id of each connection that carried calls once it closed
    ///     (``CallContext/connectionID``).
    public init(
        router: MethodRouter,
        connectionConfiguration: ConnectionConfiguration = ConnectionConfiguration(role: .server),
        metrics: any CallMetrics,
        webSocket: WebSocketCarrierConfiguration? = nil,
        connectionClosed: @escaping @Sendable (UInt64) -> Void = { _ in }
    ) {
        self.webSocket = webSocket
        self.routes = router.handlers.reduce(into: [:]) { table, route in
            let label = route.key.split(separator: "/").last.map(String.init) ?? "other"
            table[route.key] = Route(handler: route.value, path: route.key, label: label, okCalls: metrics.okCallCounter(method: label))
        }
        self.sharedConnectionConfiguration = SharedConnectionConfiguration(connectionConfiguration)
        self.metrics = metrics
        self.closedHandler = connectionClosed
    }

    /// The handler factory for `TLSServer`: a connection that serves the router's methods.
    public func makeConnection(_ connection: TLSConnection) -> ServerConnection {
        makeConnection(on: connection.eventLoop)
    }

    /// A connection on `loop`, before its transport is active.
    func makeConnection(on loop: EventLoop) -> ServerConnection {
        let id = nextConnectionID.wrappingAdd(1, ordering: .relaxed).oldValue
        return ServerConnection(id: id, loop: loop, server: self)
    }

    func route(for path: String) -> Route? { routes[path] }

    func connectionClosed(_ connection: ServerConnection) { closedHandler(connection.id) }

    /// Counts a finished call of a routed method by status.
    func callEnded(_ route: Route, status: ReaderGatewayV1.StatusCode) {
        if status == .ok {
            route.okCalls()
        } else {
            metrics.callEnded(method: route.label, status: status)
        }
    }

    /// Counts a call to a path no route serves.
    func unroutedCallEnded(status: ReaderGatewayV1.StatusCode) {
        metrics.callEnded(method: "other", status: status)
    }
}
