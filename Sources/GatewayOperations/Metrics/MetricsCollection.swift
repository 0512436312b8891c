import Synchronization

/// The metric families of one process, in registration order, and their
/// rendering in the Prometheus text format.
///
/// Register families once at start-up; record into the returned families
/// from any thread. Rendering takes the lock only to copy the family list.
public final class MetricsCollection: Sendable {
    private let families = Mutex<[any RenderableFamily]>([])
    private let names = Mutex<Set<String>>([])
    private let scrapeHooks = Mutex<[@Sendable () -> Void]>([])

    public init() {}

    /// Registers a family of counters. Names end in `_total` by convention.
    public func counter(_ name: String, help: String, labels: [MetricLabel] = []) -> MetricFamily<Counter> {
        register(MetricFamily(name: name, help: help, labels: labels) { Counter() })
    }

    /// Registers a family of gauges.
    public func gauge(_ name: String, help: String, labels: [MetricLabel] = []) -> MetricFamily<Gauge> {
        register(MetricFamily(name: name, help: help, labels: labels) { Gauge() })
    }

    /// Registers a family of histograms that share `buckets`.
    public func histogram(
        _ name: String, help: String, buckets: HistogramBuckets, labels: [MetricLabel] = []
    ) -> MetricFamily<Histogram> {
        register(MetricFamily(name: name, help: help, labels: labels) { Histogram(buckets: buckets) })
    }

    /// Registers a gauge without labels whose value `read` supplies at scrape time.
    @discardableResult
    public func sampledGauge(_ name: String, help: String, read: @escaping @Sendable () -> Double) -> MetricFamily<SampledGauge> {
        register(MetricFamily(name: name, help: help, labels: []) { SampledGauge(read) })
    }

    /// Runs `hook` at the start of every scrape, before any family renders: for gauges whose
    /// value another component keeps and that are cheaper read than pushed on every change
    /// (the store pool's counts). The hook runs on the scraping thread: quick, non-blocking.
    public func onScrape(_ hook: @escaping @Sendable () -> Void) {
        scrapeHooks.withLock { $0.append(hook) }
    }

    func registerTable(_ table: MetricTable) -> MetricTable {
        let inserted = names.withLock { $0.insert(table.name).inserted }
        precondition(inserted, "metric \(table.name) is registered twice")
        families.withLock { $0.append(table) }
        return table
    }

    private func register<Metric>(_ family: MetricFamily<Metric>) -> MetricFamily<Metric> {
        let inserted = names.withLock { $0.insert(family.name).inserted }
        precondition(inserted, "metric \(family.name) is registered twice")
        families.withLock { $0.append(family) }
        return family
    }

    /// The whole exposition: every family, then the label overflow counter.
    public func render() -> String {
        for hook in scrapeHooks.withLock({ $0 }) { hook() }
        let snapshot = families.withLock { $0 }
        var output = ""
        output.reserveCapacity(snapshot.count * 512)
        for family in snapshot { family.renderFamily(into: &output) }
        let name = "reader_gateway_metric_label_overflow_total"
        output += "# HELP \(name) Label values outside a family's declared set, counted under \"other\" (a bug to report).\n"
        output += "# TYPE \(name) counter\n"
        for family in snapshot where family.isLabeled {
            let overflowCount = family.overflowCount
            PrometheusText.appendSample(
                to: &output, name: name, labels: "family=\"\(family.familyName)\"", value: String(overflowCount)
            )
        }
        return output
    }
}

/// A family seen without its sample type, for rendering.
protocol RenderableFamily: Sendable {
    var familyName: String { get }
    var overflowCount: UInt64 { get }
    var isLabeled: Bool { get }
    func renderFamily(into output: inout String)
}

extension MetricFamily: RenderableFamily {
    var familyName: String { name }
    var overflowCount: UInt64 { overflow.value }
    var isLabeled: Bool { !labels.isEmpty }
    func renderFamily(into output: inout String) { render(into: &output) }
}
