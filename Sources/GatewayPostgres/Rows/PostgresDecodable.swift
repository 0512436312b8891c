import Foundation

/// A Swift type that can be read from a column's text-format value.
///
/// `Optional` conforms when its wrapped type does: SQL `NULL` becomes `nil`,
/// while decoding `NULL` as a non-optional type is a ``StoreError/Code/decodingFailed``.
public protocol PostgresDecodable: Sendable {
    /// Reads the value from its text representation, or nil when it is malformed.
    init?(postgresText text: String)
    /// The value for SQL `NULL`, when the type has one.
    static var postgresNull: Self? { get }
}

extension PostgresDecodable {
    public static var postgresNull: Self? { nil }
}

extension String: PostgresDecodable {
    public init?(postgresText text: String) { self = text }
}

extension Int64: PostgresDecodable {
    public init?(postgresText text: String) { self.init(text) }
}

extension Int: PostgresDecodable {
    public init?(postgresText text: String) { self.init(text) }
}

extension Int32: PostgresDecodable {
    public init?(postgresText text: String) { self.init(text) }
}

extension Double: PostgresDecodable {
    public init?(postgresText text: String) { self.init(text) }
}

extension Bool: PostgresDecodable {
    public init?(postgresText text: String) {
        switch text {
        case "t", "true": self = true
        case "f", "false": self = false
        default: return nil
        }
    }
}

extension UUID: PostgresDecodable {
    public init?(postgresText text: String) { self.init(uuidString: text) }
}

extension Date: PostgresDecodable {
    /// Reads `timestamptz` (and `timestamp`, taken as UTC) in ISO DateStyle.
    public init?(postgresText text: String) {
        guard let date = PostgresTimestamp.parse(text) else { return nil }
        self = date
    }
}

/// `bytea` in hex output form (`\x0a1b…`).
public struct PostgresBytes: PostgresDecodable, Hashable {
    public var bytes: [UInt8]

    public init(_ bytes: [UInt8]) { self.bytes = bytes }

    public init?(postgresText text: String) {
        let utf8 = Array(text.utf8)
        guard utf8.count >= 2, utf8[0] == UInt8(ascii: "\\"), utf8[1] == UInt8(ascii: "x"), utf8.count % 2 == 0 else {
            return nil
        }
        func nibble(_ c: UInt8) -> UInt8? {
            switch c {
            case 48...57: c - 48
            case 97...102: c - 87
            case 65...70: c - 55
            default: nil
            }
        }
        var out = [UInt8]()
        out.reserveCapacity((utf8.count - 2) / 2)
        var index = 2
        while index < utf8.count {
            guard let high = nibble(utf8[index]), let low = nibble(utf8[index + 1]) else { return nil }
            out.append(high << 4 | low)
            index += 2
        }
        bytes = out
    }
}

extension Data: PostgresDecodable {
    public init?(postgresText text: String) {
        guard let value = PostgresBytes(postgresText: text) else { return nil }
        self.init(value.bytes)
    }
}

extension Optional: PostgresDecodable where Wrapped: PostgresDecodable {
    public init?(postgresText text: String) {
        guard let value = Wrapped(postgresText: text) else { return nil }
        self = .some(value)
    }
    public static var postgresNull: Self? { .some(.none) }
}
