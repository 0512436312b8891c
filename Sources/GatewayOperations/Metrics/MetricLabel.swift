/// A value of a label whose set of values is fixed in code, declared as an
/// enum with `Int` raw values `0, 1, 2, …` in `allCases` order.
///
/// Lookups by such a value cost one multiplication and an array index: no
/// hashing, no lock, so they suit the data path.
///
///     enum ClaimOutcome: Int, MetricLabelValue {
///         case connected, replaced, refusedBusy
///         var labelValue: String { … }
///     }
public protocol MetricLabelValue: MetricLabelArgument, CaseIterable, RawRepresentable where RawValue == Int {
    /// The text written in the exposition (`refused_busy`).
    var labelValue: String { get }
}

/// One label of a metric family and the only values it may take.
///
/// Any other value is counted under ``MetricLabel/overflowValue`` and in the
/// collection's overflow counter, so a bug that feeds unbounded values (peer
/// addresses, reader serials) cannot grow the exposition without bound.
public struct MetricLabel: Sendable {
    /// The value that stands for every value outside the declared set.
    public static let overflowValue = "other"

    /// The label name (`outcome`).
    public let name: String
    /// The declared values, in exposition order.
    public let values: [String]
    /// Position of each declared value in ``values``.
    let ordinals: [String: Int]
    /// The enum type whose `rawValue` indexes ``values``, when declared from one.
    let enumType: ObjectIdentifier?

    /// A label that takes only `values`.
    public init(_ name: String, values: [String]) {
        self.init(name: name, values: values, enumType: nil)
    }

    /// A label that takes the values of an enum, in `allCases` order.
    public init<Value: MetricLabelValue>(_ name: String, _ type: Value.Type) {
        let cases = Array(Value.allCases)
        for (position, value) in cases.enumerated() {
            precondition(value.rawValue == position, "\(Value.self): raw values must be 0, 1, 2, … in allCases order")
        }
        self.init(name: name, values: cases.map(\.labelValue), enumType: ObjectIdentifier(type))
    }

    private init(name: String, values: [String], enumType: ObjectIdentifier?) {
        precondition(PrometheusText.isValidLabelName(name), "\(name.debugDescription) is not a valid label name")
        precondition(!values.contains(Self.overflowValue), "\(Self.overflowValue) is reserved for values outside the declared set")
        var ordinals: [String: Int] = [:]
        for (position, value) in values.enumerated() {
            precondition(ordinals.updateValue(position, forKey: value) == nil, "label \(name) declares \(value) twice")
        }
        self.name = name
        self.values = values
        self.ordinals = ordinals
        self.enumType = enumType
    }

    /// How many children this label spans: the declared values plus the overflow value.
    var radix: Int { values.count + 1 }

    /// The text of the value at `ordinal` (the overflow value past the declared ones).
    func value(at ordinal: Int) -> String {
        ordinal < values.count ? values[ordinal] : Self.overflowValue
    }
}

/// Something that selects one value of a ``MetricLabel``: a
/// ``MetricLabelValue`` enum (no hashing) or a `String` (one dictionary
/// lookup; values outside the declared set select the overflow value).
public protocol MetricLabelArgument: Sendable {
    /// The position of this value in `label`, or `nil` when it is not declared.
    func ordinal(in label: MetricLabel) -> Int?
}

extension String: MetricLabelArgument {
    public func ordinal(in label: MetricLabel) -> Int? { label.ordinals[self] }
}

extension MetricLabelValue {
    public func ordinal(in label: MetricLabel) -> Int? {
        assert(label.enumType == ObjectIdentifier(Self.self), "label \(label.name) is not declared from \(Self.self)")
        return rawValue
    }
}
