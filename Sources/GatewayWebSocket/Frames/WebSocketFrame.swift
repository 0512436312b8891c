/// A WebSocket frame opcode (RFC 6455 §5.2).
public struct WebSocketOpcode: RawRepresentable, Sendable, Hashable {
    public var rawValue: UInt8

    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let continuation = Self(rawValue: 0x0)
    public static let text = Self(rawValue: 0x1)
    public static let binary = Self(rawValue: 0x2)
    public static let close = Self(rawValue: 0x8)
    public static let ping = Self(rawValue: 0x9)
    public static let pong = Self(rawValue: 0xA)

    /// Close, ping and pong: at most 125 payload bytes, never fragmented.
    public var isControl: Bool { rawValue & 0x8 != 0 }
    /// One of the six opcodes RFC 6455 defines.
    public var isDefined: Bool { [0x0, 0x1, 0x2, 0x8, 0x9, 0xA].contains(rawValue) }
}

/// One decoded frame, its payload already unmasked.
public struct WebSocketFrame: Sendable, Hashable {
    /// The last frame of its message.
    public var fin: Bool
    public var opcode: WebSocketOpcode
    public var payload: [UInt8]

    public init(fin: Bool = true, opcode: WebSocketOpcode, payload: [UInt8] = []) {
        self.fin = fin
        self.opcode = opcode
        self.payload = payload
    }
}
