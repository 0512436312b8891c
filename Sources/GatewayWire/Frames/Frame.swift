/// The type byte of a frame header (PROTOCOL.md, "Frame types").
public struct FrameType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// The limits a peer announces; first frame in each direction, stream 0.
    public static let settings = FrameType(rawValue: 0x0)
    /// Opens a call: method path, timeout, metadata. Client to server.
    public static let callStart = FrameType(rawValue: 0x1)
    /// One serialized protobuf message of a call.
    public static let message = FrameType(rawValue: 0x2)
    /// The client sends no more messages on this call. Empty payload.
    public static let halfClose = FrameType(rawValue: 0x3)
    /// The server's last frame of a call: status, reason, message, trailers.
    public static let endOfCall = FrameType(rawValue: 0x4)
    /// Abandons a call, either direction, with a status.
    public static let cancel = FrameType(rawValue: 0x5)
    /// Liveness and round-trip probe; 8 opaque bytes, echoed with the ACK flag.
    public static let ping = FrameType(rawValue: 0x6)
    /// The sender accepts no calls above a stream id and will close.
    public static let goAway = FrameType(rawValue: 0x7)
    /// Returns flow-control credit for a stream, or for the connection on stream 0.
    public static let windowUpdate = FrameType(rawValue: 0x8)

    public var description: String {
        switch self {
        case .settings: "SETTINGS"
        case .callStart: "CALL_START"
        case .message: "MESSAGE"
        case .halfClose: "HALF_CLOSE"
        case .endOfCall: "END_OF_CALL"
        case .cancel: "CANCEL"
        case .ping: "PING"
        case .goAway: "GOAWAY"
        case .windowUpdate: "WINDOW_UPDATE"
        default: "UNKNOWN(0x\(String(rawValue, radix: 16)))"
        }
    }
}

/// The flags byte of a frame header.
public struct FrameFlags: OptionSet, Hashable, Sendable {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// On PING: this frame is the answer (pong) to a ping with the same payload.
    public static let ack = FrameFlags(rawValue: 0x01)
}

/// One decoded frame.
public enum Frame: Equatable, Sendable {
    /// SETTINGS (stream 0).
    case settings(ReaderGatewayV1.Settings)
    /// CALL_START on a new stream.
    case callStart(streamID: UInt32, ReaderGatewayV1.CallStart)
    /// MESSAGE: one serialized message.
    case message(streamID: UInt32, [UInt8])
    /// HALF_CLOSE.
    case halfClose(streamID: UInt32)
    /// END_OF_CALL.
    case endOfCall(streamID: UInt32, ReaderGatewayV1.CallEnd)
    /// CANCEL.
    case cancel(streamID: UInt32, ReaderGatewayV1.Status)
    /// PING, or its answer when `ack` is true.
    case ping(ack: Bool, payload: UInt64)
    /// GOAWAY (stream 0).
    case goAway(ReaderGatewayV1.GoAway)
    /// WINDOW_UPDATE; stream 0 for the connection.
    case windowUpdate(streamID: UInt32, increment: UInt32)

    /// The stream the frame belongs to; 0 for connection frames.
    public var streamID: UInt32 {
        switch self {
        case .settings, .ping, .goAway: 0
        case .callStart(let id, _), .message(let id, _), .halfClose(let id), .endOfCall(let id, _),
            .cancel(let id, _), .windowUpdate(let id, _):
            id
        }
    }
}

/// The fixed 10-byte frame header and the protocol's constants.
public enum FrameHeader {
    /// Header bytes before each payload: length (4), type (1), flags (1), stream id (4).
    public static let size = 10
    /// The 8 bytes a client sends before its first frame: `RGW1\r\n\r\n`.
    public static let clientPreface: [UInt8] = Array("RGW1\r\n\r\n".utf8)
    /// The largest stream id (31 bits; the top bit is reserved and must be 0).
    public static let maxStreamID: UInt32 = 0x7FFF_FFFF
    /// The largest flow-control window and WINDOW_UPDATE increment.
    public static let maxWindow: Int64 = 0x7FFF_FFFF
}
