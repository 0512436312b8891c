import Synchronization

/// A family with one label whose values are not known in advance (a webhook endpoint's id):
/// its samples are replaced or added to by key, and at most `maximumKeys` keys are kept (a
/// key beyond them is counted under `other`), so the exposition stays bounded.
///
/// Slower than ``MetricFamily`` (a lock and a dictionary per update): for rates of a few
/// updates per second per key, never the data path of calls.
public final class MetricTable: Sendable {
    public let name: String
    public let help: String
    public let labelName: String
    public let type: MetricType
    public let maximumKeys: Int
    private let values = Mutex<[String: Double]>([:])

    init(name: String, help: String, labelName: String, type: MetricType, maximumKeys: Int) {
        precondition(PrometheusText.isValidMetricName(name) && PrometheusText.isValidLabelName(labelName))
        self.name = name
        self.help = help
        self.labelName = labelName
        self.type = type
        self.maximumKeys = maximumKeys
    }

    /// Adds `amount` to `key`'s sample (counters).
    public func add(_ amount: Double, to key: String) {
        values.withLock { values in
            let kept = values[key] != nil || values.count < maximumKeys ? key : MetricLabel.overflowValue
            values[kept, default: 0] += amount
        }
    }

    /// Replaces every sample with `samples` (gauges read from elsewhere); keys beyond
    /// `maximumKeys` are summed under `other`.
    public func replace(with samples: [String: Double]) {
        var kept: [String: Double] = [:]
        for (key, value) in samples.sorted(by: { $0.key < $1.key }) {
            let target = kept.count < maximumKeys || kept[key] != nil ? key : MetricLabel.overflowValue
            kept[target, default: 0] += value
        }
        values.withLock { $0 = kept }
    }

    /// The sample of `key` (nil when it has none).
    public func value(_ key: String) -> Double? { values.withLock { $0[key] } }
}

extension MetricTable: RenderableFamily {
    var familyName: String { name }
    var overflowCount: UInt64 { 0 }
    var isLabeled: Bool { false }

    func renderFamily(into output: inout String) {
        output += "# HELP \(name) \(PrometheusText.escapeHelp(help))\n# TYPE \(name) \(type.rawValue)\n"
        for (key, value) in values.withLock({ $0 }).sorted(by: { $0.key < $1.key }) {
            PrometheusText.appendSample(
                to: &output, name: name, labels: "\(labelName)=\"\(PrometheusText.escapeLabelValue(key))\"",
                value: PrometheusText.formatDouble(value)
            )
        }
    }
}

extension MetricsCollection {
    /// Registers a ``MetricTable``: one label, values known only as they come.
    public func table(_ name: String, help: String, labelName: String, type: MetricType, maximumKeys: Int = 1_000) -> MetricTable {
        registerTable(MetricTable(name: name, help: help, labelName: labelName, type: type, maximumKeys: maximumKeys))
    }
}
