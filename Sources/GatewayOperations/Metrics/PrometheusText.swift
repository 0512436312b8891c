/// Helpers for the Prometheus text exposition format, version 0.0.4.
public enum PrometheusText {
    /// The `Content-Type` of a scrape response.
    public static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    /// Whether `name` matches `[a-zA-Z_:][a-zA-Z0-9_:]*`.
    public static func isValidMetricName(_ name: String) -> Bool {
        isValidIdentifier(name, allowColon: true)
    }

    /// Whether `name` matches `[a-zA-Z_][a-zA-Z0-9_]*` and does not start with `__`.
    public static func isValidLabelName(_ name: String) -> Bool {
        isValidIdentifier(name, allowColon: false) && !name.hasPrefix("__")
    }

    private static func isValidIdentifier(_ name: String, allowColon: Bool) -> Bool {
        guard let first = name.utf8.first else { return false }
        func isLetter(_ byte: UInt8) -> Bool { (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z") }
        func isAllowed(_ byte: UInt8) -> Bool { isLetter(byte) || byte == UInt8(ascii: "_") || (allowColon && byte == UInt8(ascii: ":")) }
        guard isAllowed(first) else { return false }
        return name.utf8.dropFirst().allSatisfy { isAllowed($0) || ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) }
    }

    /// Escapes a `# HELP` text: backslash and line feed.
    public static func escapeHelp(_ text: String) -> String {
        var escaped = ""
        for character in text {
            switch character {
            case "\\": escaped += "\\\\"
            case "\n": escaped += "\\n"
            default: escaped.append(character)
            }
        }
        return escaped
    }

    /// Escapes a label value: backslash, double quote and line feed.
    public static func escapeLabelValue(_ text: String) -> String {
        var escaped = ""
        for character in text {
            switch character {
            case "\\": escaped += "\\\\"
            case "\"": escaped += "\\\""
            case "\n": escaped += "\\n"
            default: escaped.append(character)
            }
        }
        return escaped
    }

    /// Formats a sample value or bucket bound: integers without a fraction,
    /// `+Inf`, `-Inf` and `NaN` as the format spells them.
    public static func formatDouble(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return value.description
    }

    /// Appends `name{labels} value` and a line feed, without intermediate strings.
    static func appendSample(to output: inout String, name: String, suffix: String = "", labels: String, value: String) {
        output.append(name)
        output.append(suffix)
        if !labels.isEmpty {
            output.append("{")
            output.append(labels)
            output.append("}")
        }
        output.append(" ")
        output.append(value)
        output.append("\n")
    }
}
