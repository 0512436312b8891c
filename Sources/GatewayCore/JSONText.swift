/// JSON string escaping, shared by the JSON log format, `gatewayctl --json` and the
/// interop driver so that every JSON the project writes escapes text the same way.
public enum JSONText {
    /// `text` as a JSON string literal, quotes included.
    public static func quoted(_ text: String) -> String {
        var out = "\""
        appendEscaped(text, to: &out)
        return out + "\""
    }

    /// Appends `text` with quotes, backslashes and control characters escaped (no quotes around it).
    public static func appendEscaped(_ text: String, to out: inout String) {
        out.reserveCapacity(out.utf8.count + text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default:
                out.unicodeScalars.append(scalar)
            }
        }
    }
}
