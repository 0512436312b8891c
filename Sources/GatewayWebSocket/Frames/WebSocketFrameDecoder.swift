/// Decodes WebSocket frames (RFC 6455 §5.2) from bytes arriving in any pieces.
///
/// Pure and incremental: ``nextFrame(maxDataPayload:)`` returns nil until a whole frame is
/// buffered, and leaves the buffer untouched then. Every rule that the header decides —
/// RSV bits, opcode, masking, control frame size and fragmentation, the length encoding,
/// text, the payload limit — is checked as soon as the header is complete, before a byte
/// of payload is kept, so an oversized or forbidden frame costs nothing to refuse.
public struct WebSocketFrameDecoder: Sendable {
    /// Which side of the connection decodes: a server requires masked frames, a client
    /// requires unmasked ones (RFC 6455 §5.1).
    public enum Role: Sendable, Hashable {
        case server, client
    }

    public let role: Role
    /// Whether text frames are accepted; when not, one fails with 1003.
    public let acceptsText: Bool
    private var buffer: [UInt8] = []
    private var readIndex = 0

    public init(role: Role, acceptsText: Bool = false) {
        self.role = role
        self.acceptsText = acceptsText
    }

    /// Bytes received and not yet returned as frames.
    public var bufferedByteCount: Int { buffer.count - readIndex }

    /// Adds received bytes.
    public mutating func append(_ bytes: some Sequence<UInt8>) {
        compact()
        buffer.append(contentsOf: bytes)
    }

    /// Adds received bytes straight from the transport's read buffer.
    public mutating func append(_ bytes: UnsafeRawBufferPointer) {
        compact()
        buffer.append(contentsOf: bytes)
    }

    /// Drops consumed bytes once they are at least half the buffer.
    private mutating func compact() {
        if readIndex > 0, readIndex >= buffer.count / 2 {
            buffer.removeFirst(readIndex)
            readIndex = 0
        }
    }

    /// The next whole frame, nil when more bytes are needed, or the error that fails the
    /// connection. A data frame (binary, text, continuation) longer than `maxDataPayload`
    /// fails with 1009 (the caller passes what is left of its message limit).
    public mutating func nextFrame(maxDataPayload: Int) throws(WebSocketProtocolError) -> WebSocketFrame? {
        let available = buffer.count - readIndex
        guard available >= 2 else { return nil }
        let first = buffer[readIndex]
        let second = buffer[readIndex + 1]
        let fin = first & 0x80 != 0
        let opcode = WebSocketOpcode(rawValue: first & 0x0F)
        let masked = second & 0x80 != 0

        if first & 0x70 != 0 { throw WebSocketProtocolError(.protocolError, "reserved bits set without an extension") }
        guard opcode.isDefined else { throw WebSocketProtocolError(.protocolError, "reserved opcode \(opcode.rawValue)") }
        if opcode.isControl && !fin { throw WebSocketProtocolError(.protocolError, "fragmented control frame") }
        switch (role, masked) {
        case (.server, false): throw WebSocketProtocolError(.protocolError, "client frame not masked")
        case (.client, true): throw WebSocketProtocolError(.protocolError, "server frame masked")
        default: break
        }

        var headerSize = 2
        var length = UInt64(second & 0x7F)
        if length == 126 {
            guard available >= 4 else { return nil }
            length = UInt64(buffer[readIndex + 2]) << 8 | UInt64(buffer[readIndex + 3])
            headerSize = 4
            if length < 126 { throw WebSocketProtocolError(.protocolError, "length not minimally encoded") }
        } else if length == 127 {
            guard available >= 10 else { return nil }
            length = 0
            for offset in 2..<10 { length = length << 8 | UInt64(buffer[readIndex + offset]) }
            headerSize = 10
            if length >> 63 != 0 { throw WebSocketProtocolError(.protocolError, "64-bit length with its top bit set") }
            if length <= 0xFFFF { throw WebSocketProtocolError(.protocolError, "length not minimally encoded") }
        }
        if opcode.isControl && length > 125 { throw WebSocketProtocolError(.protocolError, "control frame over 125 bytes") }
        if opcode == .text && !acceptsText { throw WebSocketProtocolError(.unsupportedData, "text messages are not accepted: send binary") }
        if !opcode.isControl && length > UInt64(max(0, maxDataPayload)) {
            throw WebSocketProtocolError(.messageTooBig, "message too big")
        }

        let maskOffset = readIndex + headerSize
        if masked { headerSize += 4 }
        let total = headerSize + Int(length)
        guard available >= total else { return nil }

        let payloadStart = readIndex + headerSize
        let payload: [UInt8]
        if masked {
            payload = Self.unmasked(buffer, payloadStart: payloadStart, count: Int(length), keyAt: maskOffset)
        } else {
            payload = Array(buffer[payloadStart..<(payloadStart + Int(length))])
        }
        readIndex += total
        if readIndex == buffer.count {
            buffer.removeAll(keepingCapacity: buffer.count <= 65536)
            readIndex = 0
        }
        return WebSocketFrame(fin: fin, opcode: opcode, payload: payload)
    }

    /// The payload at `payloadStart` XORed with the 4-byte key at `keyAt` (RFC 6455 §5.3), in
    /// one pass from the buffer into the new array, eight bytes at a time.
    private static func unmasked(_ buffer: [UInt8], payloadStart: Int, count: Int, keyAt keyOffset: Int) -> [UInt8] {
        guard count > 0 else { return [] }
        precondition(keyOffset >= 0 && keyOffset + 4 <= payloadStart && payloadStart + count <= buffer.count, "frame bounds checked by the caller")
        return buffer.withUnsafeBytes { source in
            let key = (source[keyOffset], source[keyOffset + 1], source[keyOffset + 2], source[keyOffset + 3])
            // The key repeated over eight bytes, in memory order, so the XOR is endian-neutral.
            let wideKey = withUnsafeBytes(of: (key.0, key.1, key.2, key.3, key.0, key.1, key.2, key.3)) { $0.loadUnaligned(as: UInt64.self) }
            return [UInt8](unsafeUninitializedCapacity: count) { target, initialized in
                let from = UnsafeRawPointer(source.baseAddress! + payloadStart)
                let to = UnsafeMutableRawPointer(target.baseAddress!)
                var index = 0
                while index + 8 <= count {
                    to.storeBytes(of: from.loadUnaligned(fromByteOffset: index, as: UInt64.self) ^ wideKey, toByteOffset: index, as: UInt64.self)
                    index += 8
                }
                while index < count {
                    let keyByte: UInt8
                    switch index & 3 {
                    case 0: keyByte = key.0
                    case 1: keyByte = key.1
                    case 2: keyByte = key.2
                    default: keyByte = key.3
                    }
                    to.storeBytes(of: from.load(fromByteOffset: index, as: UInt8.self) ^ keyByte, toByteOffset: index, as: UInt8.self)
                    index += 1
                }
                initialized = count
            }
        }
    }
}
