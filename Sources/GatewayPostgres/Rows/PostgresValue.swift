import Foundation

/// One statement parameter, sent in PostgreSQL's text format and always bound
/// (`$1`, `$2`, …), never spliced into the SQL text.
///
/// Build values with the typed initializers or literals; `nil` in a parameter
/// list is SQL `NULL`.
///
/// ```swift
/// try await client.query("SELECT id FROM readers WHERE serial = $1 AND account = $2", [.init(serial), .init(accountID)])
/// ```
public struct PostgresValue: Sendable, Hashable {
    /// The text representation the server parses.
    public let text: String
    /// The type OID to declare, or 0 to let the server infer it from the statement.
    public let typeOID: UInt32

    public init(text: String, typeOID: UInt32 = 0) {
        self.text = text
        self.typeOID = typeOID
    }

    public init(_ value: String) { self.init(text: value) }
    public init(_ value: Int) { self.init(text: String(value)) }
    public init(_ value: Int64) { self.init(text: String(value)) }
    public init(_ value: Int32) { self.init(text: String(value)) }
    public init(_ value: Double) { self.init(text: value.description) }
    public init(_ value: Bool) { self.init(text: value ? "t" : "f") }
    /// A UUID in its canonical lower-case form.
    public init(_ value: UUID) { self.init(text: value.uuidString.lowercased()) }
    /// A `timestamptz` with microsecond precision, in UTC.
    public init(_ value: Date) { self.init(text: PostgresTimestamp.format(value), typeOID: 1184) }
    /// A `bytea` in hex form.
    public init(bytes: [UInt8]) {
        let digits: [UInt8] = Array("0123456789abcdef".utf8)
        var hex = [UInt8]("\\x".utf8)
        hex.reserveCapacity(2 + bytes.count * 2)
        for byte in bytes {
            hex.append(digits[Int(byte >> 4)])
            hex.append(digits[Int(byte & 0x0f)])
        }
        self.init(text: String(decoding: hex, as: UTF8.self), typeOID: 17)
    }
    public init(_ value: Data) { self.init(bytes: [UInt8](value)) }
}

extension PostgresValue: ExpressibleByStringLiteral {
    public init(stringLiteral value: String) { self.init(value) }
}

extension PostgresValue: ExpressibleByIntegerLiteral {
    public init(integerLiteral value: Int) { self.init(value) }
}

extension PostgresValue: ExpressibleByBooleanLiteral {
    public init(booleanLiteral value: Bool) { self.init(value) }
}

/// Formats and parses `timestamptz` text (ISO DateStyle; the client sets the
/// session time zone to UTC on every connection).
enum PostgresTimestamp {
    static func format(_ date: Date) -> String {
        let micros = (date.timeIntervalSince1970 * 1_000_000).rounded()
        let totalMicros = Int64(micros)
        var seconds = totalMicros / 1_000_000
        var fraction = totalMicros % 1_000_000
        if fraction < 0 {
            fraction += 1_000_000
            seconds -= 1
        }
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        return String(
            format: "%04d-%02d-%02d %02d:%02d:%02d.%06d+00",
            Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1, Int(parts.tm_mday),
            Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec), Int(fraction)
        )
    }

    /// Parses `YYYY-MM-DD HH:MM:SS[.ffffff][+HH[:MM[:SS]]]` (also with `T`).
    static func parse(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        var index = 0
        func number(_ count: Int) -> Int? {
            guard index + count <= bytes.count else { return nil }
            var value = 0
            for _ in 0..<count {
                let byte = bytes[index]
                guard byte >= 48 && byte <= 57 else { return nil }
                value = value * 10 + Int(byte - 48)
                index += 1
            }
            return value
        }
        func expect(_ characters: String) -> Bool {
            guard index < bytes.count, characters.utf8.contains(bytes[index]) else { return false }
            index += 1
            return true
        }
        guard let year = number(4), expect("-"), let month = number(2), expect("-"), let day = number(2),
              expect(" T"), let hour = number(2), expect(":"), let minute = number(2), expect(":"),
              let second = number(2)
        else { return nil }
        var micros = 0
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            var digits = 0
            while index < bytes.count, bytes[index] >= 48, bytes[index] <= 57 {
                if digits < 6 { micros = micros * 10 + Int(bytes[index] - 48) }
                digits += 1
                index += 1
            }
            for _ in digits..<max(digits, 6) { micros *= 10 }
        }
        var offsetSeconds = 0
        if index < bytes.count {
            let sign = bytes[index] == UInt8(ascii: "-") ? -1 : 1
            guard expect("+-"), let hours = number(2) else { return nil }
            var minutes = 0
            var seconds = 0
            if expect(":") { guard let value = number(2) else { return nil }; minutes = value }
            if expect(":") { guard let value = number(2) else { return nil }; seconds = value }
            offsetSeconds = sign * (hours * 3600 + minutes * 60 + seconds)
        }
        guard index == bytes.count else { return nil }
        var parts = tm()
        parts.tm_year = Int32(year - 1900)
        parts.tm_mon = Int32(month - 1)
        parts.tm_mday = Int32(day)
        parts.tm_hour = Int32(hour)
        parts.tm_min = Int32(minute)
        parts.tm_sec = Int32(second)
        let epoch = Int64(timegm(&parts)) - Int64(offsetSeconds)
        return Date(timeIntervalSince1970: Double(epoch) + Double(micros) / 1_000_000)
    }
}
