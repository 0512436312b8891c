/// Writes WebSocket frames (RFC 6455 §5.2) with the shortest length encoding.
public enum WebSocketFrameEncoder {
    /// Appends `frame` to `buffer`; with a `maskingKey` the payload is masked (what a client
    /// sends), without one it is not (what a server sends).
    public static func append(_ frame: WebSocketFrame, maskingKey: [UInt8]? = nil, rsv: UInt8 = 0, to buffer: inout [UInt8]) {
        appendHeader(fin: frame.fin, opcode: frame.opcode, rsv: rsv, masked: maskingKey != nil, payloadCount: frame.payload.count, to: &buffer)
        if let maskingKey {
            precondition(maskingKey.count == 4, "a masking key is 4 bytes")
            buffer.append(contentsOf: maskingKey)
            for (index, byte) in frame.payload.enumerated() { buffer.append(byte ^ maskingKey[index & 3]) }
        } else {
            buffer.append(contentsOf: frame.payload)
        }
    }

    /// Appends a frame's header up to its payload (a masked one's key goes next).
    public static func appendHeader(fin: Bool = true, opcode: WebSocketOpcode, rsv: UInt8 = 0, masked: Bool = false, payloadCount count: Int, to buffer: inout [UInt8]) {
        buffer.append((fin ? 0x80 : 0) | (rsv & 0x7) << 4 | opcode.rawValue & 0xF)
        let maskBit: UInt8 = masked ? 0x80 : 0
        if count < 126 {
            buffer.append(maskBit | UInt8(count))
        } else if count <= 0xFFFF {
            buffer.append(maskBit | 126)
            buffer.append(UInt8(count >> 8))
            buffer.append(UInt8(count & 0xFF))
        } else {
            buffer.append(maskBit | 127)
            for shift in stride(from: 56, through: 0, by: -8) { buffer.append(UInt8(truncatingIfNeeded: UInt64(count) >> UInt64(shift))) }
        }
    }

    /// One frame's bytes.
    public static func encode(_ frame: WebSocketFrame, maskingKey: [UInt8]? = nil) -> [UInt8] {
        var buffer: [UInt8] = []
        append(frame, maskingKey: maskingKey, to: &buffer)
        return buffer
    }

    /// A close frame's payload: the code, then the reason cut to fit the 125-byte control
    /// limit on a character boundary.
    public static func closePayload(_ code: WebSocketCloseCode, reason: String) -> [UInt8] {
        var payload = [UInt8(code.rawValue >> 8), UInt8(code.rawValue & 0xFF)]
        var room = 123
        for character in reason {
            let bytes = Array(String(character).utf8)
            guard bytes.count <= room else { break }
            payload.append(contentsOf: bytes)
            room -= bytes.count
        }
        return payload
    }
}
