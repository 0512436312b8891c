/// One machine-readable line: an event word then `key=value` pairs, e.g.
/// `registration_code serial=SIM-0001 code=K7QD-3MXA`. Values with spaces, quotes or `=`
/// are double-quoted with `\"` and `\\` escaped, so `split` on spaces outside quotes parses it.
public struct OutputLine: Sendable, Hashable, CustomStringConvertible {
    /// The event word.
    public var event: String
    /// The fields, in order.
    public var fields: [(key: String, value: String)]

    public init(_ event: String, _ fields: KeyValuePairs<String, String>) {
        self.event = event
        self.fields = fields.map { ($0.key, $0.value) }
    }

    public init(event: String, fields: [(key: String, value: String)]) {
        self.event = event
        self.fields = fields
    }

    public var description: String {
        var text = event
        for (key, value) in fields {
            text += " \(key)=\(Self.quote(value))"
        }
        return text
    }

    /// The value of `key`, if present.
    public subscript(key: String) -> String? { fields.first { $0.key == key }?.value }

    static func quote(_ value: String) -> String {
        let needsQuotes = value.isEmpty || value.contains { $0 == " " || $0 == "\"" || $0 == "=" || $0 == "\\" || $0 == "\t" }
        guard needsQuotes else { return value }
        var quoted = "\""
        for character in value {
            if character == "\"" || character == "\\" { quoted.append("\\") }
            quoted.append(character)
        }
        return quoted + "\""
    }

    /// Parses a line printed by ``description``; nil for an empty line.
    public static func parse(_ line: String) -> OutputLine? {
        var tokens: [String] = []
        var current = ""
        var inQuotes = false
        var escaped = false
        var started = false
        for character in line {
            if escaped {
                current.append(character)
                escaped = false
            } else if character == "\\" && inQuotes {
                escaped = true
            } else if character == "\"" {
                inQuotes.toggle()
                started = true
            } else if character == " " && !inQuotes {
                if started { tokens.append(current) }
                current = ""
                started = false
            } else {
                current.append(character)
                started = true
            }
        }
        if started { tokens.append(current) }
        guard let event = tokens.first else { return nil }
        var fields: [(key: String, value: String)] = []
        for token in tokens.dropFirst() {
            guard let equals = token.firstIndex(of: "=") else { continue }
            fields.append((String(token[..<equals]), String(token[token.index(after: equals)...])))
        }
        return OutputLine(event: event, fields: fields)
    }

    public static func == (lhs: OutputLine, rhs: OutputLine) -> Bool {
        lhs.description == rhs.description
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(description) }
}
