import GatewayCore
import GatewayOperations
import GatewayTransport
import GatewayWire
import Synchronization

/// Routes calls by method path and creates a ``GatewayConnection`` per
/// accepted TLS connection.
final class CallRouter: Sendable {
    let routes: [String: MethodHandler]
    /// The metric label of each routed path (its method name), computed once.
    private let methodLabels: [String: String]
    let connectionConfiguration: ConnectionConfiguration
    let metrics: GatewayMetrics
    let logger = Logger(component: "calls")
    private let nextConnectionID = Atomic<UInt64>(1)
    private let closedHandler: @Sendable (UInt64) -> Void

    init(
        routes: [String: MethodHandler],
        connectionConfiguration: ConnectionConfiguration,
        metrics: GatewayMetrics,
        connectionClosed: @escaping @Sendable (UInt64) -> Void
    ) {
        self.routes = routes
        self.methodLabels = Dictionary(uniqueKeysWithValues: routes.keys.map { ($0, $0.split(separator: "/").last.map(String.init) ?? "other") })
        self.connectionConfiguration = connectionConfiguration
        self.metrics = metrics
        self.closedHandler = connectionClosed
    }

    /// The handler factory for `TLSServer`.
    func makeConnection(_ connection: TLSConnection) -> GatewayConnection {
        let id = nextConnectionID.wrappingAdd(1, ordering: .relaxed).oldValue
        return GatewayConnection(id: id, loop: connection.eventLoop, router: self)
    }

    func handler(for path: String) -> MethodHandler? { routes[path] }

    func connectionOpened(_ connection: GatewayConnection) {}

    func connectionClosed(_ connection: GatewayConnection) { closedHandler(connection.id) }

    /// Counts a finished call by method name and status.
    func callEnded(_ path: String, status: ReaderGatewayV1.StatusCode) {
        let label = CallStatus(rawValue: Int(status.rawValue)) ?? .unknown
        metrics.calls.labels(methodLabels[path] ?? "other", label).increment()
    }
}
