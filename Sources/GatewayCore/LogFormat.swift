import Foundation

/// How a ``LogRecord`` becomes one line of text.
public enum LogFormat: String, Sendable, CaseIterable {
    /// `ts=… level=info component=store msg="ready" key=value` (https://brandur.org/logfmt).
    case logfmt
    /// One JSON object per line.
    case json

    /// Formats one record as a single line ending in a newline.
    public func format(_ record: LogRecord) -> String {
        let timestamp = LogFormat.timestamp(record.date)
        switch self {
        case .logfmt:
            var line = "ts=\(timestamp) level=\(record.level) component=\(LogFormat.logfmtValue(record.component))"
            line += " msg=\(LogFormat.logfmtValue(record.message))"
            for (key, value) in record.metadata {
                line += " \(LogFormat.logfmtKey(key))=\(LogFormat.logfmtValue(value))"
            }
            return line + "\n"
        case .json:
            var line = "{\"ts\":\(LogFormat.jsonString(timestamp)),\"level\":\(LogFormat.jsonString(record.level.description))"
            line += ",\"component\":\(LogFormat.jsonString(record.component)),\"msg\":\(LogFormat.jsonString(record.message))"
            for (key, value) in record.metadata {
                line += ",\(LogFormat.jsonString(key)):\(LogFormat.jsonString(value))"
            }
            return line + "}\n"
        }
    }

    static func timestamp(_ date: Date) -> String {
        let millis = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        var time = time_t(millis / 1000)
        var parts = tm()
        gmtime_r(&time, &parts)
        return String(
            format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ",
            Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1, Int(parts.tm_mday),
            Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec), Int(millis % 1000)
        )
    }

    static func logfmtKey(_ key: String) -> String {
        String(key.unicodeScalars.map { scalar -> Character in
            scalar == " " || scalar == "=" || scalar == "\"" || scalar.value < 0x20 ? "_" : Character(scalar)
        })
    }

    static func logfmtValue(_ value: String) -> String {
        let needsQuotes = value.isEmpty || value.unicodeScalars.contains {
            $0 == " " || $0 == "=" || $0 == "\"" || $0 == "\\" || $0.value < 0x20
        }
        guard needsQuotes else { return value }
        return "\"" + escaped(value) + "\""
    }

    static func jsonString(_ value: String) -> String { JSONText.quoted(value) }

    /// Escapes quotes, backslashes and control characters the way both JSON and logfmt read them.
    static func escaped(_ value: String) -> String {
        var out = ""
        JSONText.appendEscaped(value, to: &out)
        return out
    }
}
