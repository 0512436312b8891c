/// Option values after parsing, with typed accessors that throw ``OptionsError``.
public struct ParsedOptions: Sendable {
    /// Where a value came from (dev defaults are announced at start-up).
    public enum Source: Sendable, Equatable { case `default`, environment, flag }

    public let program: String
    public let values: [String: String]
    public let sources: [String: Source]
    public let positional: [String]

    public var helpRequested: Bool { (try? flag("help")) ?? false }

    /// The raw value, or nil when neither given nor defaulted (an empty string counts as not given).
    public func string(_ name: String) -> String? {
        guard let value = values[name], !value.isEmpty else { return nil }
        return value
    }

    public func source(_ name: String) -> Source? { sources[name] }

    public func int(_ name: String, in range: ClosedRange<Int> = Int.min...Int.max) throws(OptionsError) -> Int? {
        guard let raw = string(name) else { return nil }
        guard let value = Int(raw), range.contains(value) else {
            throw OptionsError.malformed(name: name, value: raw, expected: "a whole number in \(range.lowerBound)...\(range.upperBound)", program: program)
        }
        return value
    }

    /// A duration in seconds; accepts `1.5`, `250ms`, `10s`, `2m`.
    public func duration(_ name: String) throws(OptionsError) -> Duration? {
        guard let raw = string(name) else { return nil }
        guard let duration = ParsedOptions.parseDuration(raw) else {
            throw OptionsError.malformed(name: name, value: raw, expected: "a duration such as 250ms, 10s or 2m", program: program)
        }
        return duration
    }

    /// A duration, or `off` for none: `.some(nil)` when the value is `off`, nil when absent.
    public func durationOrOff(_ name: String) throws(OptionsError) -> Duration?? {
        guard let raw = string(name) else { return nil }
        if raw.lowercased() == "off" { return .some(nil) }
        guard let duration = ParsedOptions.parseDuration(raw) else {
            throw OptionsError.malformed(name: name, value: raw, expected: "a duration such as 250ms, 10s or 2m, or off", program: program)
        }
        return .some(duration)
    }

    public func flag(_ name: String) throws(OptionsError) -> Bool {
        guard let raw = values[name] else { return false }
        guard let value = ParsedOptions.parseBool(raw) else {
            throw OptionsError.malformed(name: name, value: raw, expected: "true or false", program: program)
        }
        return value
    }

    /// One of a fixed set of values.
    public func choice<T: RawRepresentable & CaseIterable>(_ name: String, as type: T.Type) throws(OptionsError) -> T? where T.RawValue == String {
        guard let raw = string(name) else { return nil }
        guard let value = T(rawValue: raw) else {
            let allowed = T.allCases.map(\.rawValue).joined(separator: ", ")
            throw OptionsError.malformed(name: name, value: raw, expected: "one of \(allowed)", program: program)
        }
        return value
    }

    static func parseBool(_ raw: String) -> Bool? {
        switch raw.lowercased() {
        case "true", "1", "yes", "on": true
        case "false", "0", "no", "off": false
        default: nil
        }
    }

    static func parseDuration(_ raw: String) -> Duration? {
        let units: [(suffix: String, scale: Double)] = [("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600)]
        var number = Substring(raw)
        var scale = 1.0
        for unit in units where raw.hasSuffix(unit.suffix) {
            number = raw.dropLast(unit.suffix.count)
            scale = unit.scale
            break
        }
        guard let value = Double(number), value.isFinite, value >= 0 else { return nil }
        return .nanoseconds(Int64((value * scale * 1_000_000_000).rounded()))
    }
}
