/// The identity of a registered reader (for example `tmr_FDOt2wlRZEdpd7`).
public struct ReaderID: Hashable, Sendable, CustomStringConvertible {
    public var rawValue: String
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }
}

/// The identity of one SDK session: one point-of-sale app instance connected to the gateway.
public struct SessionID: Hashable, Sendable, CustomStringConvertible {
    public var rawValue: String
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }
}

/// The human label of a lane (a till, a kiosk), shown to admins and to a displaced session.
public struct LaneLabel: Hashable, Sendable, CustomStringConvertible {
    public var rawValue: String
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }
}

/// A fencing token for the ownership of one reader.
///
/// It increases by one on every change of owner (connected, replaced, released, expired,
/// reader lost, admin released) and never decreases; the store may make it jump (the first
/// change of a reader on a new PostgreSQL timeline starts at that timeline's floor, above
/// every generation an earlier timeline handed out). Every write an owner makes carries the
/// generation it was granted; a write with an older generation changes nothing.
public struct OwnershipGeneration: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var rawValue: Int64
    public init(_ rawValue: Int64) { self.rawValue = rawValue }

    /// The generation of a reader that was never owned.
    public static let initial = OwnershipGeneration(0)

    /// The generation after one more change of owner.
    public var next: OwnershipGeneration { OwnershipGeneration(rawValue + 1) }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
    public var description: String { String(rawValue) }
}

/// Counts the attachments of a reader's own link to the gateway.
///
/// Every time the reader (re)connects its link, the epoch grows. Events carrying an older
/// epoch come from a link that is gone and are ignored.
public struct LinkEpoch: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var rawValue: Int64
    public init(_ rawValue: Int64) { self.rawValue = rawValue }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
    public var description: String { String(rawValue) }
}
