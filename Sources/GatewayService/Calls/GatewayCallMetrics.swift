import GatewayOperations
import GatewayRPC
import GatewayWire

/// What the call layer counts, in the gateway's metrics collection: calls by method and status
/// (`reader_gateway_calls_total`), connections moved between loops, WebSocket upgrades and
/// refusals by reason.
struct GatewayCallMetrics: CallMetrics {
    let metrics: GatewayMetrics

    func okCallCounter(method: String) -> @Sendable () -> Void {
        let counter = metrics.calls.labels(method, CallStatus.ok)
        return { counter.increment() }
    }

    func callEnded(method: String, status: ReaderGatewayV1.StatusCode) {
        metrics.calls.labels(method, CallStatus(rawValue: Int(status.rawValue)) ?? .unknown).increment()
    }

    func connectionMoved() {
        metrics.connectionMoves.unlabeled.increment()
    }

    func webSocketUpgraded() {
        metrics.browser.webSocketUpgrades.unlabeled.increment()
    }

    func webSocketRefused(kind: String) {
        let reason = WebSocketRefusalReason.allCases.first { $0.labelValue == kind } ?? .malformed
        metrics.browser.webSocketRefusals.labels(reason).increment()
    }
}
