/// A peer's frame broke a rule: the connection fails with `closeCode` (RFC 6455 §7.1.7).
public struct WebSocketProtocolError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The close code the connection fails with.
    public let closeCode: WebSocketCloseCode
    /// What was wrong, short enough for a close frame's reason.
    public let reason: String

    public init(_ closeCode: WebSocketCloseCode, _ reason: String) {
        self.closeCode = closeCode
        self.reason = reason
    }

    public var description: String { "\(closeCode.rawValue) \(reason)" }
}
