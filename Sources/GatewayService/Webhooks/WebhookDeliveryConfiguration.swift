import GatewayDomain

/// How this replica delivers webhooks: its bounds, the retry schedule and window, and the
/// outbound TLS and address rules.
public struct WebhookDeliveryConfiguration: Sendable {
    /// Deliveries in flight on this replica at once, over every endpoint.
    public var maximumInFlight: Int = 32
    /// Deliveries in flight on this replica at once to one endpoint.
    public var maximumInFlightPerEndpoint: Int = 4
    /// The deadline of one attempt: resolve, connect, handshake, write, the answer's head.
    public var requestTimeout: Duration = .seconds(10)
    /// How long a claimed delivery stays leased to this replica; once it expires another
    /// replica claims it (this one died or hung). Longer than the request timeout.
    public var leaseDuration: Duration = .seconds(60)
    /// How often the queue is polled for due deliveries while there is room.
    public var pollInterval: Duration = .milliseconds(500)
    /// How often the queue's per-endpoint gauges are refreshed.
    public var metricsInterval: Duration = .seconds(10)
    /// The backoff after a first failed attempt (`--webhook-retry-base`); it doubles after
    /// each further failure up to ``retryCap``, with jitter (``WebhookRetrySchedule``).
    public var retryBase: Duration = .seconds(30)
    public var retryCap: Duration = .seconds(6 * 3_600)
    /// How long an endpoint may fail (and a delivery stay queued) before the endpoint is
    /// disabled and the delivery given up (`--webhook-retry-window`, 3 days).
    public var retryWindow: Duration = .seconds(3 * 86_400)
    /// `--webhook-allow-private-addresses`: receivers on loopback and private ranges are allowed.
    public var allowPrivateAddresses = false
    /// `--webhook-ca-file`: PEM certificates receivers may chain to instead of the system's.
    public var trustedCAPath: String?
    /// Off: this replica delivers nothing (the queue still fills; other replicas deliver).
    public var enabled: Bool = true

    public init() {}

    var retrySchedule: WebhookRetrySchedule { WebhookRetrySchedule(baseMs: retryBase.wholeMilliseconds, capMs: retryCap.wholeMilliseconds) }
    var addressPolicy: WebhookAddressPolicy { allowPrivateAddresses ? .allowPrivate : .publicOnly }
}
