/// The JSON object of an event's flat string fields, keys sorted: written by hand, since it
/// runs once per command outcome (Foundation's encoder costs several times more).
enum EventDetails {
    static func json(_ details: [String: String]) -> String {
        var text = "{"
        for (index, key) in details.keys.sorted().enumerated() {
            if index > 0 { text += ", " }
            quote(key, into: &text)
            text += ": "
            quote(details[key] ?? "", into: &text)
        }
        return text + "}"
    }

    /// `value` as a JSON string: quotes, backslashes and control characters escaped.
    static func quote(_ value: String, into text: inout String) {
        text += "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                text += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: text.unicodeScalars.append(scalar)
            }
        }
        text += "\""
    }
}
