/// A WebSocket close status code (RFC 6455 §7.4), the first two bytes of a close frame.
public struct WebSocketCloseCode: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public var rawValue: UInt16

    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// 1000: the purpose of the connection is fulfilled (a graceful GOAWAY ran its course).
    public static let normalClosure = Self(rawValue: 1000)
    /// 1001: the server is going down (drain, shutdown) or the browser left the page.
    public static let goingAway = Self(rawValue: 1001)
    /// 1002: the peer broke WebSocket framing (unmasked, RSV bits, reserved opcode,
    /// fragmented or oversized control frame, bad continuation, bad close payload), or a
    /// binary message that is not exactly one protocol frame.
    public static let protocolError = Self(rawValue: 1002)
    /// 1003: a data type the endpoint does not accept (this binding takes binary only).
    public static let unsupportedData = Self(rawValue: 1003)
    /// 1005: no code was present (never sent on the wire).
    public static let noStatusReceived = Self(rawValue: 1005)
    /// 1006: the connection ended without a close frame (never sent on the wire).
    public static let abnormalClosure = Self(rawValue: 1006)
    /// 1007: data inconsistent with its type (a close reason that is not UTF-8).
    public static let invalidPayload = Self(rawValue: 1007)
    /// 1008: a policy was violated (the protocol's connection errors end with this after
    /// their GOAWAY; a peer that reads too slowly or floods).
    public static let policyViolation = Self(rawValue: 1008)
    /// 1009: a message above the configured limit.
    public static let messageTooBig = Self(rawValue: 1009)
    /// 1011: the server met an unexpected condition.
    public static let internalError = Self(rawValue: 1011)
    /// 1013: try again later (the server is over its connection limit).
    public static let tryAgainLater = Self(rawValue: 1013)

    /// Whether a peer may send this code in a close frame: 1000–1003, 1007–1014 (the
    /// registered ones; 1004, 1005, 1006 and 1015 never go on the wire) and 3000–4999.
    public var isValidOnTheWire: Bool {
        switch rawValue {
        case 1000...1003, 1007...1014, 3000...4999: true
        default: false
        }
    }

    public var description: String { "\(rawValue)" }
}
