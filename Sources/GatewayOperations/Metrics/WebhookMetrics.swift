/// Webhook deliveries, one sample per endpoint id (`endpoint="we_..."`).
///
/// The counters are this replica's attempts; the queue gauges are the whole deployment's queue
/// as PostgreSQL holds it (every replica reports the same values: take `max` across replicas).
public struct WebhookMetrics: Sendable {
    /// Deliveries the endpoint answered with 2xx.
    public let delivered: MetricTable
    /// Attempts that failed (status outside 2xx, refused address, TLS or connect failure, timeout).
    public let failedAttempts: MetricTable
    /// Pending deliveries that have failed at least once and wait for their next attempt.
    public let retrying: MetricTable
    /// Pending deliveries.
    public let pending: MetricTable
    /// Age of the oldest pending delivery, in seconds.
    public let oldestPendingSeconds: MetricTable
    /// Rounds in which this replica could not ask PostgreSQL for deliveries (the store is down
    /// or refusing): nothing is delivered from this replica while it grows.
    public let claimFailures: MetricFamily<Counter>

    init(_ collection: MetricsCollection) {
        delivered = collection.table(
            "reader_gateway_webhook_delivered_total", help: "Webhook deliveries the endpoint acknowledged (2xx), by this replica.",
            labelName: "endpoint", type: .counter
        )
        failedAttempts = collection.table(
            "reader_gateway_webhook_failed_attempts_total",
            help: "Webhook delivery attempts that failed (non-2xx, refused address, TLS, connect, timeout), by this replica.",
            labelName: "endpoint", type: .counter
        )
        retrying = collection.table(
            "reader_gateway_webhook_retrying", help: "Pending webhook deliveries that failed at least once (whole deployment).",
            labelName: "endpoint", type: .gauge
        )
        pending = collection.table(
            "reader_gateway_webhook_pending", help: "Pending webhook deliveries (whole deployment).", labelName: "endpoint", type: .gauge
        )
        oldestPendingSeconds = collection.table(
            "reader_gateway_webhook_oldest_pending_seconds", help: "Age of the oldest pending webhook delivery (whole deployment).",
            labelName: "endpoint", type: .gauge
        )
        claimFailures = collection.counter(
            "reader_gateway_webhook_claim_failures_total",
            help: "Rounds in which this replica could not claim webhook deliveries from PostgreSQL."
        )
    }
}
