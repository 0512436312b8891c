import GatewayDomain

/// One reader link (one `ReaderLink.Attach` call) in this process. A link that
/// replaces another gets a new id; ids only grow.
public struct LinkID: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var rawValue: UInt64
    public init(_ rawValue: UInt64) { self.rawValue = rawValue }
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
    public var description: String { "link-\(rawValue)" }
}

/// One `SubscribeEvents` call of a session. A session has at most one live stream;
/// a new subscription gets a new id and ends the previous stream.
public struct EventStreamID: Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt64
    public init(_ rawValue: UInt64) { self.rawValue = rawValue }
    public var description: String { "stream-\(rawValue)" }
}

/// A command relayed down a link: the link it went down and the id the reader sees
/// (per reader, counted across the links that replace one another).
public struct CommandKey: Hashable, Sendable, CustomStringConvertible {
    public var link: LinkID
    public var command: UInt64
    public init(link: LinkID, command: UInt64) {
        self.link = link
        self.command = command
    }
    public var description: String { "\(link)/command-\(command)" }
}

/// Where a reader's link lives when it is not on this replica (cached by the
/// sessions that relay to it; nil: look it up).
public struct ReaderHomeCache: Hashable, Sendable {
    public var epoch: LinkEpoch
    public var node: String
    public var internalAddress: String
    public init(epoch: LinkEpoch, node: String, internalAddress: String) {
        self.epoch = epoch
        self.node = node
        self.internalAddress = internalAddress
    }
}
