import GatewayCore
/// A JSON document, built explicitly and printed with sorted keys (stable for scripts and tests).
public indirect enum JSONValue: Sendable, Equatable, CustomStringConvertible {
    case null
    case bool(Bool)
    case number(Double)
    case integer(Int64)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public var description: String {
        var text = ""
        write(to: &text, indent: 0)
        return text
    }

    private func write(to text: inout String, indent: Int) {
        let pad = String(repeating: "  ", count: indent + 1)
        let closePad = String(repeating: "  ", count: indent)
        switch self {
        case .null: text += "null"
        case .bool(let value): text += value ? "true" : "false"
        case .number(let value): text += value.isFinite ? "\(value)" : "null"
        case .integer(let value): text += "\(value)"
        case .string(let value): text += Self.quote(value)
        case .array(let values):
            guard !values.isEmpty else { text += "[]"; return }
            text += "[\n"
            for (index, value) in values.enumerated() {
                text += pad
                value.write(to: &text, indent: indent + 1)
                text += index == values.count - 1 ? "\n" : ",\n"
            }
            text += closePad + "]"
        case .object(let members):
            guard !members.isEmpty else { text += "{}"; return }
            text += "{\n"
            let keys = members.keys.sorted()
            for (index, key) in keys.enumerated() {
                text += pad + Self.quote(key) + ": "
                members[key]!.write(to: &text, indent: indent + 1)
                text += index == keys.count - 1 ? "\n" : ",\n"
            }
            text += closePad + "}"
        }
    }

    static func quote(_ value: String) -> String { JSONText.quoted(value) }
}
