/// The metrics of the browser surfaces: the WebSocket binding's upgrades, the fleet
/// console's sign-ins, and `WatchFleet` watchers.
public struct BrowserMetrics: Sendable {
    /// WebSocket upgrades accepted (`reader_gateway_websocket_upgrades_total`).
    public let webSocketUpgrades: MetricFamily<Counter>
    /// WebSocket upgrades refused, by reason.
    public let webSocketRefusals: MetricFamily<Counter>
    /// Fleet console sign-ins, by result.
    public let consoleSignIns: MetricFamily<Counter>
    /// `WatchFleet` calls open on this replica.
    public let fleetWatchers: MetricFamily<Gauge>
    /// Changes sent to `WatchFleet` watchers.
    public let fleetWatchEvents: MetricFamily<Counter>

    init(collection: MetricsCollection) {
        webSocketUpgrades = collection.counter(
            "reader_gateway_websocket_upgrades_total", help: "WebSocket upgrades accepted on the gateway's port."
        )
        webSocketRefusals = collection.counter(
            "reader_gateway_websocket_upgrades_refused_total", help: "WebSocket upgrades refused, by reason (origin: not on the allow-list).",
            labels: [MetricLabel("reason", WebSocketRefusalReason.self)]
        )
        consoleSignIns = collection.counter(
            "reader_gateway_console_sign_ins_total",
            help: "Fleet console sign-ins, by result (signed_in, refused: wrong key or a malformed request, failed: the store could not answer).",
            labels: [MetricLabel("result", ConsoleSignInResult.self)]
        )
        fleetWatchers = collection.gauge("reader_gateway_fleet_watchers", help: "WatchFleet calls open on this replica.")
        fleetWatchEvents = collection.counter("reader_gateway_fleet_watch_events_total", help: "Reader changes sent to WatchFleet watchers.")
    }
}

/// Why a WebSocket upgrade was refused.
public enum WebSocketRefusalReason: Int, MetricLabelValue {
    /// The page's origin is not on the allow-list.
    case origin
    /// Not the binding's path.
    case path
    /// Not a GET, or not HTTP/1.1.
    case method
    /// The upgrade headers (Upgrade, Connection, Sec-WebSocket-Version or -Key, Host) are missing or wrong.
    case upgrade
    /// The client did not offer the binding's subprotocol.
    case subprotocol
    /// The request head is malformed or too large.
    case malformed

    public var labelValue: String {
        switch self {
        case .origin: "origin"
        case .path: "path"
        case .method: "method"
        case .upgrade: "upgrade"
        case .subprotocol: "subprotocol"
        case .malformed: "malformed"
        }
    }
}

/// How a console sign-in ended.
public enum ConsoleSignInResult: Int, MetricLabelValue {
    case signedIn
    case refused
    case failed

    public var labelValue: String {
        switch self {
        case .signedIn: "signed_in"
        case .refused: "refused"
        case .failed: "failed"
        }
    }
}
