/// The protocol of `proto/PROTOCOL.md` over WebSocket (its section "WebSocket binding").
///
/// The upgrade happens on ``path`` with the subprotocol ``subprotocol``; after it, each
/// binary WebSocket message carries exactly one protocol frame (the 10-byte header and its
/// payload), and there is no preface: the subprotocol plays its part, so the first message
/// is the client's SETTINGS.
public enum WebSocketBinding {
    /// The request path that upgrades to the protocol.
    public static let path = "/readergateway/v1/websocket"
    /// The `Sec-WebSocket-Protocol` value a client offers and the gateway selects.
    public static let subprotocol = "readergateway.v1"
    /// Bytes of the protocol's frame header (PROTOCOL.md section 2): a big-endian payload
    /// length, type, flags and stream id.
    public static let frameHeaderSize = 10

    /// Whether a received binary message holds exactly one protocol frame: a whole header
    /// whose length field equals the bytes after it. A message that is not gets the
    /// protocol's connection error (GOAWAY `PROTOCOL_ERROR`) and close code 1002.
    public static func isOneFrame(_ message: some Collection<UInt8>) -> Bool {
        guard message.count >= frameHeaderSize else { return false }
        var length = 0
        for byte in message.prefix(4) { length = length << 8 | Int(byte) }
        return message.count - frameHeaderSize == length
    }

    /// Cuts the bytes a `FrameConnection` wrote (whole frames, back to back) into one
    /// message per frame. A trailing partial frame (never written by `FrameConnection`) is
    /// left in `bytes`, to be completed by the next output.
    public static func splitFrames(_ bytes: inout [UInt8]) -> [[UInt8]] {
        var messages: [[UInt8]] = []
        var offset = 0
        while bytes.count - offset >= frameHeaderSize {
            var length = 0
            for byte in bytes[offset..<offset + 4] { length = length << 8 | Int(byte) }
            let end = offset + frameHeaderSize + length
            guard end <= bytes.count else { break }
            messages.append(Array(bytes[offset..<end]))
            offset = end
        }
        bytes.removeFirst(offset)
        return messages
    }

    /// The close code that follows the protocol's GOAWAY when the `FrameConnection` ends
    /// (PROTOCOL.md, "WebSocket binding"): 1000 after a graceful GOAWAY whose calls finished
    /// (max idle, max age), 1001 when the gateway shuts down, 1009 for a frame or header
    /// over its limit, 1008 for ping abuse, 1011 for an internal error, 1002 for any other
    /// protocol error. `reason` is the GOAWAY status's `ErrorReason` number.
    public static func closeCode(afterGoAwayReason reason: Int, shuttingDown: Bool) -> WebSocketCloseCode {
        switch reason {
        case 113: shuttingDown ? .goingAway : .normalClosure  // GOING_AWAY
        case 101, 109: .messageTooBig  // FRAME_TOO_LARGE, HEADER_TOO_LARGE
        case 115: .policyViolation  // TOO_MANY_PINGS
        case 57: .internalError  // INTERNAL
        case 100...117: .protocolError
        default: shuttingDown ? .goingAway : .internalError
        }
    }
}
