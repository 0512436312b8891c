/// A gauge read at scrape time from a closure, for values another component
/// already keeps (resident memory, open descriptors, pool size).
///
/// The closure runs on the ops thread during a scrape: it must be quick and
/// must not block (read an atomic or a file in /proc, never the database).
public final class SampledGauge: PrometheusSample {
    private let read: @Sendable () -> Double

    public init(_ read: @escaping @Sendable () -> Double) { self.read = read }

    /// The value now.
    public var value: Double { read() }

    public static var metricType: MetricType { .gauge }
    public var hasObservations: Bool { value != 0 }

    public func render(name: String, labels: String, into output: inout String) {
        PrometheusText.appendSample(to: &output, name: name, labels: labels, value: PrometheusText.formatDouble(value))
    }
}
