import GatewayPostgres

/// The four array parameters of ``ReaderEventBatcher/appendBatch`` (readers, accounts, types,
/// details), written in one pass over the batch straight into the arrays' literals: each event's
/// details as its JSON object (``EventDetails/json(_:)``'s text: keys sorted, escaped as
/// ``JSONText`` escapes) quoted as an array element, with no string per field, per object or per
/// column in between. A busy replica writes tens of thousands of these a second.
struct EventBatchParameters {
    private var readers: [UInt8] = [UInt8(ascii: "{")]
    private var accounts: [UInt8] = [UInt8(ascii: "{")]
    private var types: [UInt8] = [UInt8(ascii: "{")]
    private var details: [UInt8] = [UInt8(ascii: "{")]
    private var keys: [String] = []

    init(capacity: Int) {
        readers.reserveCapacity(2 + capacity * 24)
        accounts.reserveCapacity(2 + capacity * 24)
        types.reserveCapacity(2 + capacity * 28)
        details.reserveCapacity(2 + capacity * 200)
        keys.reserveCapacity(8)
    }

    init(_ batch: [ReaderEventBatcher.Event]) {
        self.init(capacity: batch.count)
        for event in batch { append(event) }
    }

    mutating func append(_ event: ReaderEventBatcher.Event) {
        Self.appendElement(event.reader, to: &readers)
        Self.appendElement(event.account, to: &accounts)
        Self.appendElement(event.type, to: &types)
        if details.count > 1 { details.append(UInt8(ascii: ",")) }
        details.append(UInt8(ascii: "\""))
        Self.appendQuoted(UInt8(ascii: "{"), to: &details)
        keys.removeAll(keepingCapacity: true)
        keys.append(contentsOf: event.details.keys)
        keys.sort()
        for (index, key) in keys.enumerated() {
            if index > 0 {
                Self.appendQuoted(UInt8(ascii: ","), to: &details)
                Self.appendQuoted(UInt8(ascii: " "), to: &details)
            }
            Self.appendJSONString(key, to: &details)
            Self.appendQuoted(UInt8(ascii: ":"), to: &details)
            Self.appendQuoted(UInt8(ascii: " "), to: &details)
            Self.appendJSONString(event.details[key] ?? "", to: &details)
        }
        Self.appendQuoted(UInt8(ascii: "}"), to: &details)
        details.append(UInt8(ascii: "\""))
    }

    /// `$1` … `$4` of the statement.
    func values() -> [PostgresValue?] {
        [readers, accounts, types, details].map { literal in
            var literal = literal
            literal.append(UInt8(ascii: "}"))
            return PostgresValue(text: String(decoding: literal, as: UTF8.self))
        }
    }

    /// `text` as one element of an array literal: quoted, `"` and `\` escaped.
    private static func appendElement(_ text: String, to literal: inout [UInt8]) {
        if literal.count > 1 { literal.append(UInt8(ascii: ",")) }
        literal.append(UInt8(ascii: "\""))
        for byte in text.utf8 { appendQuoted(byte, to: &literal) }
        literal.append(UInt8(ascii: "\""))
    }

    /// `text` as a JSON string (quotes around it; quotes, backslashes and control characters
    /// escaped as ``JSONText/appendEscaped(_:to:)`` does), inside a quoted array element.
    private static func appendJSONString(_ text: String, to literal: inout [UInt8]) {
        appendQuoted(UInt8(ascii: "\""), to: &literal)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                appendQuoted(UInt8(ascii: "\\"), to: &literal)
                appendQuoted(byte, to: &literal)
            case UInt8(ascii: "\n"): appendEscape(UInt8(ascii: "n"), to: &literal)
            case UInt8(ascii: "\r"): appendEscape(UInt8(ascii: "r"), to: &literal)
            case UInt8(ascii: "\t"): appendEscape(UInt8(ascii: "t"), to: &literal)
            case 0..<0x20:
                // Multi-byte UTF-8 sequences never hold bytes below 0x80: this is a control character.
                let hex = Array("0123456789abcdef".utf8)
                appendEscape(UInt8(ascii: "u"), to: &literal)
                for digit in [0, 0, byte >> 4, byte & 0xF] { literal.append(hex[Int(digit)]) }
            default:
                literal.append(byte)
            }
        }
        appendQuoted(UInt8(ascii: "\""), to: &literal)
    }

    /// A JSON escape (`\` and `letter`) inside a quoted array element.
    private static func appendEscape(_ letter: UInt8, to literal: inout [UInt8]) {
        appendQuoted(UInt8(ascii: "\\"), to: &literal)
        literal.append(letter)
    }

    /// One byte inside a quoted array element: `"` and `\` behind a backslash.
    @inline(__always)
    private static func appendQuoted(_ byte: UInt8, to literal: inout [UInt8]) {
        if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { literal.append(UInt8(ascii: "\\")) }
        literal.append(byte)
    }
}
