/// Maps a parsed request to its response: `/healthz`, `/readyz`, `/metrics`.
///
/// Pure apart from the readiness closures and the metric reads it performs;
/// the server calls it on the ops thread.
public struct OpsRouter: Sendable {
    /// Renders `/metrics`.
    public let collection: MetricsCollection
    /// The conditions `/readyz` requires, in the order shown.
    public let readinessChecks: [ReadinessCheck]

    public init(collection: MetricsCollection, readinessChecks: [ReadinessCheck]) {
        self.collection = collection
        self.readinessChecks = readinessChecks
    }

    /// The response to `head`. Methods other than GET and HEAD get 405,
    /// unknown paths 404.
    public func respond(to head: OpsHTTPRequestHead) -> OpsHTTPResponse {
        guard head.method == "GET" || head.method == "HEAD" else {
            return .error(.methodNotAllowed, reason: "only GET and HEAD are served")
        }
        switch head.path {
        case "/healthz":
            return OpsHTTPResponse(status: .ok, body: "alive\n")
        case "/readyz":
            let report = ReadinessReport(evaluating: readinessChecks)
            return OpsHTTPResponse(status: report.isReady ? .ok : .serviceUnavailable, body: report.text)
        case "/metrics":
            return OpsHTTPResponse(status: .ok, contentType: PrometheusText.contentType, body: collection.render())
        default:
            return .error(.notFound, reason: "the ops endpoint serves /healthz, /readyz and /metrics")
        }
    }
}
