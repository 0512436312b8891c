import GatewayCore
import GatewayOperations
import GatewayTransport
import GatewayWire
import Synchronization

/// Routes calls by method path and creates a ``ServerConnection`` per
/// accepted TLS connection.
final class CallRouter: Sendable {
    /// One routed method: its handler and its metric children, looked up once. A class:
    /// every call keeps its route for its life (a reader's Attach call, for days), by reference.
    final class Route: Sendable {
        let handler: MethodHandler
        /// The method path: every call's ``CallContext/method`` shares this one string
        /// (the path read from each CALL_START would be a string of its own per call).
        let path: String
        /// The method name, the `method` label of the calls metric.
        let label: String
        /// The calls metric child for this method and OK (the common end, counted
        /// without a label lookup).
        let okCalls: Counter

        init(handler: MethodHandler, path: String, label: String, okCalls: Counter) {
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
    let metrics: GatewayMetrics
    /// The WebSocket binding on this port; nil: raw frames only (the replica link).
    let webSocket: WebSocketCarrierConfiguration?
    let logger = Logger(component: "calls")
    /// Each event loop's buffer for the events of a read (see ``ServerConnection/receiveFrames(_:flushing:)``).
    let eventBuffers = LoopEventBuffers()
    private let nextConnectionID = Atomic<UInt64>(1)
    private let closedHandler: @Sendable (UInt64) -> Void

    init(
        routes: [String: MethodHandler],
        connectionConfiguration: ConnectionConfiguration,
        metrics: GatewayMetrics,
        webSocket: WebSocketCarrierConfiguration? = nil,
        connectionClosed: @escaping @Sendable (UInt64) -> Void
    ) {
        self.webSocket = webSocket
        self.routes = routes.reduce(into: [:]) { table, route in
            let label = route.key.split(separator: "/").last.map(String.init) ?? "other"
            table[route.key] = Route(handler: route.value, path: route.key, label: label, okCalls: metrics.calls.labels(label, CallStatus.ok))
        }
        self.sharedConnectionConfiguration = SharedConnectionConfiguration(connectionConfiguration)
        self.metrics = metrics
        self.closedHandler = connectionClosed
    }

    /// The handler factory for `TLSServer`.
    func makeConnection(_ connection: TLSConnection) -> ServerConnection {
        let id = nextConnectionID.wrappingAdd(1, ordering: .relaxed).oldValue
        return ServerConnection(id: id, loop: connection.eventLoop, router: self)
    }

    func route(for path: String) -> Route? { routes[path] }

    func connectionOpened(_ connection: ServerConnection) {}

    func connectionClosed(_ connection: ServerConnection) { closedHandler(connection.id) }

    /// Counts a finished call of a routed method by status.
    func callEnded(_ route: Route, status: ReaderGatewayV1.StatusCode) {
        if status == .ok {
            route.okCalls.increment()
        } else {
            metrics.calls.labels(route.label, CallStatus(rawValue: Int(status.rawValue)) ?? .unknown).increment()
        }
    }

    /// Counts a call to a path no route serves.
    func unroutedCallEnded(status: ReaderGatewayV1.StatusCode) {
        metrics.calls.labels("other", CallStatus(rawValue: Int(status.rawValue)) ?? .unknown).increment()
    }
}
