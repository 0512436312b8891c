/// A reader software version: dotted non-negative numbers (`2.4.0`, `2.30.1.7`), compared
/// number by number; missing trailing numbers count as 0 (`2.4` == `2.4.0`).
public struct SoftwareVersion: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The numbers, trailing zeros removed (so equal versions compare equal).
    public let parts: [UInt64]
    /// The text it was parsed from.
    public let description: String

    /// Parses `text`; nil unless it is 1 to 8 dot-separated numbers of at most 9 digits each.
    public init?(_ text: String) {
        let pieces = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...8).contains(pieces.count) else { return nil }
        var parts: [UInt64] = []
        for piece in pieces {
            guard (1...9).contains(piece.count), piece.allSatisfy({ $0.isASCII && $0.isNumber }), let value = UInt64(piece) else { return nil }
            parts.append(value)
        }
        while parts.last == 0 { parts.removeLast() }
        self.parts = parts
        self.description = text
    }

    public static func == (lhs: SoftwareVersion, rhs: SoftwareVersion) -> Bool { lhs.parts == rhs.parts }
    public func hash(into hasher: inout Hasher) { hasher.combine(parts) }

    public static func < (lhs: SoftwareVersion, rhs: SoftwareVersion) -> Bool {
        lhs.parts.lexicographicallyPrecedes(rhs.parts)
    }
}
