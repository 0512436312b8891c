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

    /// Parses `YYYY-MM-DD HH:MM:SS[.ffffff][+HH[:MM[:SS]]]` (also with `T`), read in place from
    /// the text's UTF-8 and turned into seconds by calendar arithmetic: `timegm` and a copy of the
    /// bytes cost about 1,900 instructions a timestamp, two of them on every connect.
    static func parse(_ text: String) -> Date? {
        var text = text
        return text.withUTF8 { parse(bytes: $0) }
    }

    private static func parse(bytes: UnsafeBufferPointer<UInt8>) -> Date? {
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
        func expect(_ first: UInt8, or second: UInt8? = nil) -> Bool {
            guard index < bytes.count, bytes[index] == first || bytes[index] == second else { return false }
            index += 1
            return true
        }
        guard let year = number(4), expect(UInt8(ascii: "-")), let month = number(2), expect(UInt8(ascii: "-")), let day = number(2),
              expect(UInt8(ascii: " "), or: UInt8(ascii: "T")), let hour = number(2), expect(UInt8(ascii: ":")),
              let minute = number(2), expect(UInt8(ascii: ":")), let second = number(2),
              (1...12).contains(month), (1...31).contains(day)
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
            guard expect(UInt8(ascii: "+"), or: UInt8(ascii: "-")), let hours = number(2) else { return nil }
            var minutes = 0
            var seconds = 0
            if expect(UInt8(ascii: ":")) { guard let value = number(2) else { return nil }; minutes = value }
            if expect(UInt8(ascii: ":")) { guard let value = number(2) else { return nil }; seconds = value }
            offsetSeconds = sign * (hours * 3600 + minutes * 60 + seconds)
        }
        guard index == bytes.count else { return nil }
        let epoch = daysSinceEpoch(year: year, month: month, day: day) * 86_400 + hour * 3600 + minute * 60 + second - offsetSeconds
        return Date(timeIntervalSince1970: Double(epoch) + Double(micros) / 1_000_000)
    }

    /// Days from 1970-01-01 to a date of the proleptic Gregorian calendar (negative before it):
    /// years counted from March, so that the leap day ends a year, in 400-year eras of
    /// 146,097 days.
    static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let marchYear = month <= 2 ? year - 1 : year
        let era = (marchYear >= 0 ? marchYear : marchYear - 399) / 400
        let yearOfEra = marchYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
