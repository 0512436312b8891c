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

    /// Drops consumed bytes: all of them once everything was read, else once they are at
    /// least half the buffer.
    private mutating func compact() {
        if readIndex > 0, readIndex == buffer.count {
            buffer.removeAll(keepingCapacity: buffer.count <= 65536)
            readIndex = 0
        } else if readIndex > 0, readIndex >= buffer.count / 2 {
            buffer.removeFirst(readIndex)
            readIndex = 0
        }
    }

    /// A frame decoded in place (``nextFrameInPlace(maxDataPayload:)``): its payload lies
    /// unmasked in the decoder's buffer until the decoder next changes.
    public struct FrameInPlace: Sendable, Hashable {
        public let fin: Bool
        public let opcode: WebSocketOpcode
        /// Where the payload lies in the decoder's buffer.
        let payload: Range<Int>
        /// Bytes of payload.
        public var payloadCount: Int { payload.count }
    }

    /// The next whole frame, nil when more bytes are needed, or the error that fails the
    /// connection. A data frame (binary, text, continuation) longer than `maxDataPayload`
    /// fails with 1009 (the caller passes what is left of its message limit).
    public mutating func nextFrame(maxDataPayload: Int) throws(WebSocketProtocolError) -> WebSocketFrame? {
        guard let frame = try nextFrameInPlace(maxDataPayload: maxDataPayload) else { return nil }
        return WebSocketFrame(fin: frame.fin, opcode: frame.opcode, payload: payload(of: frame))
    }

    /// ``nextFrame(maxDataPayload:)`` without copying the payload out: it is unmasked where it
    /// lies, for ``withPayload(of:_:)`` or ``payload(of:)`` until the decoder next changes (the
    /// next call of this or of ``append(_:)-(UnsafeRawBufferPointer)``).
    public mutating func nextFrameInPlace(maxDataPayload: Int) throws(WebSocketProtocolError) -> FrameInPlace? {
        if readIndex > 0, readIndex == buffer.count {
            buffer.removeAll(keepingCapacity: buffer.count <= 65536)
            readIndex = 0
        }
        let (role, acceptsText, readIndex) = (role, acceptsText, readIndex)
        let parsed = buffer.withUnsafeBytes { bytes in
            Result { () throws(WebSocketProtocolError) in
                try Self.header(in: bytes, at: readIndex, role: role, acceptsText: acceptsText, maxDataPayload: maxDataPayload)
            }
        }
        guard let header = try parsed.get() else { return nil }
        let payload = header.payload(at: readIndex)
        if header.masked {
            buffer.withUnsafeMutableBytes { bytes in
                Self.unmask(UnsafeMutableRawBufferPointer(rebasing: bytes[payload]), key: header.maskingKey(in: UnsafeRawBufferPointer(bytes), at: readIndex))
            }
        }
        self.readIndex += header.frameSize
        return FrameInPlace(fin: header.fin, opcode: header.opcode, payload: payload)
    }

    /// A whole frame's header as it lies in a buffer (``header(in:at:role:acceptsText:maxDataPayload:)``).
    public struct Header: Sendable, Hashable {
        public let fin: Bool
        public let opcode: WebSocketOpcode
        public let masked: Bool
        /// Bytes before the payload: the two fixed bytes, the extended length, the masking key.
        public let headerSize: Int
        /// Bytes of payload.
        public let payloadCount: Int
        /// Bytes of the whole frame.
        public var frameSize: Int { headerSize + payloadCount }

        /// Where the payload lies when the frame starts at `start`.
        public func payload(at start: Int) -> Range<Int> {
            (start + headerSize)..<(start + headerSize + payloadCount)
        }

        /// The masking key of the frame starting at `start` in `bytes` (masked frames only).
        public func maskingKey(in bytes: UnsafeRawBufferPointer, at start: Int) -> UInt32 {
            bytes.loadUnaligned(fromByteOffset: start + headerSize - 4, as: UInt32.self)
        }
    }

    /// The header of the frame starting at `start` in `bytes` once the whole frame lies there,
    /// nil while bytes are missing, or the error that fails the connection: the rules of
    /// ``nextFrame(maxDataPayload:)``, decided from the header before the payload is looked at.
    /// For a caller that decodes frames where they arrived (a read's buffer) while the decoder
    /// holds nothing.
    public static func header(
        in bytes: UnsafeRawBufferPointer, at start: Int, role: Role, acceptsText: Bool = false, maxDataPayload: Int
    ) throws(WebSocketProtocolError) -> Header? {
        let available = bytes.count - start
        guard available >= 2 else { return nil }
        let first = bytes[start]
        let second = bytes[start + 1]
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
            length = UInt64(bytes[start + 2]) << 8 | UInt64(bytes[start + 3])
            headerSize = 4
            if length < 126 { throw WebSocketProtocolError(.protocolError, "length not minimally encoded") }
        } else if length == 127 {
            guard available >= 10 else { return nil }
            length = 0
            for offset in 2..<10 { length = length << 8 | UInt64(bytes[start + offset]) }
            headerSize = 10
            if length >> 63 != 0 { throw WebSocketProtocolError(.protocolError, "64-bit length with its top bit set") }
            if length <= 0xFFFF { throw WebSocketProtocolError(.protocolError, "length not minimally encoded") }
        }
        if opcode.isControl && length > 125 { throw WebSocketProtocolError(.protocolError, "control frame over 125 bytes") }
        if opcode == .text && !acceptsText { throw WebSocketProtocolError(.unsupportedData, "text messages are not accepted: send binary") }
        if !opcode.isControl && length > UInt64(max(0, maxDataPayload)) {
            throw WebSocketProtocolError(.messageTooBig, "message too big")
        }

        if masked { headerSize += 4 }
        guard available >= headerSize, UInt64(available - headerSize) >= length else { return nil }
        return Header(fin: fin, opcode: opcode, masked: masked, headerSize: headerSize, payloadCount: Int(length))
    }

    /// Calls `body` with the payload of the frame ``nextFrameInPlace(maxDataPayload:)`` just
    /// returned (valid only during the call).
    public func withPayload<Result>(of frame: FrameInPlace, _ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try buffer.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[frame.payload])) }
    }

    /// A copy of the payload of the frame ``nextFrameInPlace(maxDataPayload:)`` just returned.
    public func payload(of frame: FrameInPlace) -> [UInt8] {
        Array(buffer[frame.payload])
    }

    /// XORs `bytes` with the 4-byte masking key `key` (as it lay on the wire, loaded in memory
    /// order) where they lie (RFC 6455 §5.3), eight bytes at a time; `bytes` starts at the
    /// payload's first byte.
    public static func unmask(_ bytes: UnsafeMutableRawBufferPointer, key: UInt32) {
        guard !bytes.isEmpty else { return }
        // The key repeated over eight bytes, in memory order, so the XOR is endian-neutral.
        let wideKey = UInt64(key) | UInt64(key) << 32
        var index = 0
        while index + 8 <= bytes.count {
            bytes.storeBytes(of: bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self) ^ wideKey, toByteOffset: index, as: UInt64.self)
            index += 8
        }
        // Fewer than eight left, from a multiple of eight: byte by byte.
        withUnsafeBytes(of: key) { keyBytes in
            while index < bytes.count {
                bytes[index] ^= keyBytes[index & 3]
                index += 1
            }
        }
    }
}
