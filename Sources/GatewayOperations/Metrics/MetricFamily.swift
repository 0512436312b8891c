/// The kind of a metric family, as written on its `# TYPE` line.
public enum MetricType: String, Sendable {
    case counter
    case gauge
    case histogram
}

/// A metric that can be written in the Prometheus text format.
public protocol PrometheusSample: Sendable {
    /// The family type this sample belongs to.
    static var metricType: MetricType { get }
    /// Appends this sample's lines; `labels` is the rendered label list
    /// without braces (empty when the family has no labels).
    func render(name: String, labels: String, into output: inout String)
    /// Whether anything was recorded (children under an overflow value are
    /// written only then).
    var hasObservations: Bool { get }
}

/// A named metric with a fixed set of labels, each with a bounded set of
/// values. Every child (one per combination of values) is created up front,
/// so selecting one never allocates or locks.
///
/// Select a child with enum values (`claims.labels(ClaimOutcome.replaced)`),
/// strings (`calls.labels("ConnectReader", CallStatus.ok)`), or both. A
/// string outside the declared set selects the `other` child and is counted
/// in `reader_gateway_metric_label_overflow_total`.
public final class MetricFamily<Metric: PrometheusSample>: Sendable {
    /// The metric name (`reader_gateway_claims_total`).
    public let name: String
    /// The one-line description written on the `# HELP` line.
    public let help: String
    /// The labels, outermost first.
    public let labels: [MetricLabel]
    /// One child per combination of label values (mixed radix, last label fastest).
    let children: [Metric]
    /// Label selections that fell outside the declared values.
    let overflow = Counter()
    /// Each child's rendered label list (`kind="lane",state="active"`), fixed at creation.
    private let childLabels: [String]
    /// Whether each child sits under an overflow value (rendered only once used).
    private let childIsOverflow: [Bool]
    /// The `# HELP` and `# TYPE` lines.
    private let header: String

    init(name: String, help: String, labels: [MetricLabel], make: () -> Metric) {
        precondition(PrometheusText.isValidMetricName(name), "\(name.debugDescription) is not a valid metric name")
        var seen = Set<String>()
        for label in labels {
            precondition(seen.insert(label.name).inserted, "\(name) declares label \(label.name) twice")
            precondition(!(Metric.metricType == .histogram && label.name == "le"), "le is reserved in histograms")
        }
        let count = labels.reduce(1) { $0 * $1.radix }
        precondition(count <= 10_000, "\(name) would have \(count) children: keep label sets small")
        self.name = name
        self.help = help
        self.labels = labels
        self.children = (0..<count).map { _ in make() }
        var childLabels: [String] = []
        var childIsOverflow: [Bool] = []
        childLabels.reserveCapacity(count)
        childIsOverflow.reserveCapacity(count)
        for index in 0..<count {
            var remainder = index
            var ordinals = [Int](repeating: 0, count: labels.count)
            for position in labels.indices.reversed() {
                ordinals[position] = remainder % labels[position].radix
                remainder /= labels[position].radix
            }
            childIsOverflow.append(zip(ordinals, labels).contains { $0 == $1.values.count })
            childLabels.append(
                zip(labels, ordinals)
                    .map { "\($0.name)=\"\(PrometheusText.escapeLabelValue($0.value(at: $1)))\"" }
                    .joined(separator: ",")
            )
        }
        self.childLabels = childLabels
        self.childIsOverflow = childIsOverflow
        self.header = "# HELP \(name) \(PrometheusText.escapeHelp(help))\n# TYPE \(name) \(Metric.metricType.rawValue)\n"
    }

    /// The only child of a family without labels.
    public var unlabeled: Metric {
        precondition(labels.isEmpty, "\(name) has labels: select a child with labels(…)")
        return children[0]
    }

    /// The child for one label value.
    public func labels(_ first: some MetricLabelArgument) -> Metric {
        precondition(labels.count == 1, "\(name) has \(labels.count) labels")
        return children[ordinal(first, 0)]
    }

    /// The child for two label values.
    public func labels(_ first: some MetricLabelArgument, _ second: some MetricLabelArgument) -> Metric {
        precondition(labels.count == 2, "\(name) has \(labels.count) labels")
        return children[ordinal(first, 0) * labels[1].radix + ordinal(second, 1)]
    }

    /// The child for label values given as strings, one per label in order.
    public func labels(_ values: [String]) -> Metric {
        precondition(values.count == labels.count, "\(name) has \(labels.count) labels, got \(values.count) values")
        var index = 0
        for (position, value) in values.enumerated() {
            index = index * labels[position].radix + ordinal(value, position)
        }
        return children[index]
    }

    private func ordinal(_ argument: some MetricLabelArgument, _ position: Int) -> Int {
        let label = labels[position]
        if let ordinal = argument.ordinal(in: label) { return ordinal }
        overflow.increment()
        return label.values.count
    }

    /// Appends the `# HELP`, `# TYPE` and sample lines. Children under an
    /// overflow value appear only once something was counted there.
    func render(into output: inout String) {
        output.append(header)
        for index in children.indices {
            if childIsOverflow[index], !children[index].hasObservations { continue }
            children[index].render(name: name, labels: childLabels[index], into: &output)
        }
    }
}

extension Counter: PrometheusSample {
    public static var metricType: MetricType { .counter }
    public var hasObservations: Bool { value != 0 }

    public func render(name: String, labels: String, into output: inout String) {
        PrometheusText.appendSample(to: &output, name: name, labels: labels, value: String(value))
    }
}

extension Gauge: PrometheusSample {
    public static var metricType: MetricType { .gauge }
    public var hasObservations: Bool { value != 0 }

    public func render(name: String, labels: String, into output: inout String) {
        PrometheusText.appendSample(to: &output, name: name, labels: labels, value: String(value))
    }
}

extension Histogram: PrometheusSample {
    public static var metricType: MetricType { .histogram }
    public var hasObservations: Bool { snapshot().count != 0 }

    public func render(name: String, labels: String, into output: inout String) {
        let snapshot = snapshot()
        let prefix = labels.isEmpty ? "" : labels + ","
        for (bound, count) in zip(buckets.formattedUpperBounds, snapshot.cumulativeCounts) {
            PrometheusText.appendSample(to: &output, name: name, suffix: "_bucket", labels: prefix + "le=\"" + bound + "\"", value: String(count))
        }
        PrometheusText.appendSample(to: &output, name: name, suffix: "_bucket", labels: prefix + "le=\"+Inf\"", value: String(snapshot.count))
        PrometheusText.appendSample(to: &output, name: name, suffix: "_sum", labels: labels, value: PrometheusText.formatDouble(snapshot.sum))
        PrometheusText.appendSample(to: &output, name: name, suffix: "_count", labels: labels, value: String(snapshot.count))
    }
}
