/// Turns a byte stream into frames, incrementally and without trusting it.
///
/// Feed bytes as they arrive with ``append(_:)-(UnsafeRawBufferPointer)``,
/// then call ``nextFrame()`` until it returns nil ("need more bytes"). The
/// decoder is pure: it owns no I/O and no clock.
///
/// - A header's length is checked against ``maxFrameSize`` (and CALL_START
///   against ``maxHeaderSize``) as soon as the 10 header bytes are in, before
///   any payload is waited for; a peer cannot make it buffer more than one
///   frame plus what arrived in one read.
/// - Consumed bytes are dropped by compaction when they are at least half the
///   buffer, so the work per byte is constant (no quadratic copying).
/// - After an error the decoder stays failed and returns the same error.
public struct FrameDecoder: Sendable {
    /// The largest payload accepted, in bytes (our SETTINGS max_frame_size).
    public var maxFrameSize: Int
    /// The largest CALL_START payload accepted, in bytes.
    public var maxHeaderSize: Int
    /// Limits for the protobuf payloads of control frames.
    public var decodingOptions: ProtobufDecodingOptions

    private var buffer: [UInt8] = []
    private var readerIndex = 0
    private var prefaceRemaining: Int
    private var failure: WireError?
    private var consumedTotal = 0

    /// A decoder; a server's decoder first expects the client preface.
    public init(
        maxFrameSize: Int = ConnectionSettings.defaultMaxFrameSize,
        maxHeaderSize: Int = ConnectionSettings.defaultMaxHeaderSize,
        expectsClientPreface: Bool = false,
        decodingOptions: ProtobufDecodingOptions = .init()
    ) {
        self.maxFrameSize = maxFrameSize
        self.maxHeaderSize = maxHeaderSize
        self.prefaceRemaining = expectsClientPreface ? FrameHeader.clientPreface.count : 0
        self.decodingOptions = decodingOptions
    }

    /// Bytes received but not yet returned as frames.
    public var bufferedByteCount: Int { buffer.count - readerIndex }

    /// Adds received bytes.
    public mutating func append(_ bytes: UnsafeRawBufferPointer) {
        guard failure == nil else { return }
        compactIfWorthIt()
        buffer.append(contentsOf: bytes)
    }

    /// Adds received bytes.
    public mutating func append(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { append($0) }
    }

    /// Gives the buffer's storage back when it holds nothing (a link gone quiet); the next
    /// bytes that need it allocate it again.
    public mutating func releaseStorageIfDrained() {
        guard readerIndex == buffer.count, buffer.capacity > 0 else { return }
        buffer = []
        readerIndex = 0
    }

    private mutating func compactIfWorthIt() {
        if readerIndex == buffer.count {
            buffer.removeAll(keepingCapacity: buffer.capacity <= 1 << 20)
            readerIndex = 0
        } else if readerIndex >= 4096 && readerIndex * 2 >= buffer.count {
            buffer.removeSubrange(0..<readerIndex)
            readerIndex = 0
        }
    }

    /// The next complete frame, nil when more bytes are needed.
    public mutating func nextFrame() throws -> Frame? {
        if let failure { throw failure }
        var index = readerIndex
        var preface = prefaceRemaining
        var consumed = consumedTotal
        let limits = (maxFrameSize, maxHeaderSize, decodingOptions)
        do {
            let frame = try buffer.withUnsafeBytes { raw in
                try Self.decodeNext(raw, at: &index, prefaceRemaining: &preface, consumedTotal: &consumed, limits: limits)
            }
            readerIndex = index
            prefaceRemaining = preface
            consumedTotal = consumed
            return frame
        } catch let error as WireError {
            failure = error
            throw error
        }
    }

    /// Whether no received byte waits in the buffer (the next read may be decoded in place).
    public var isDrained: Bool { readerIndex == buffer.count }

    /// The next complete frame of `bytes` from `offset` (moved past it), decoded where the
    /// read left them, without copying them into the buffer; nil when the rest is not a whole
    /// frame: hand it to ``append(_:)-(UnsafeRawBufferPointer)``. Only while ``isDrained``.
    /// A connection whose frames arrive whole (a reader's heartbeats) never fills the buffer.
    public mutating func nextFrame(in bytes: UnsafeRawBufferPointer, at offset: inout Int) throws -> Frame? {
        if let failure { throw failure }
        precondition(isDrained, "nextFrame(in:at:) with bytes buffered: they come first")
        do {
            return try Self.decodeNext(
                bytes, at: &offset, prefaceRemaining: &prefaceRemaining, consumedTotal: &consumedTotal,
                limits: (maxFrameSize, maxHeaderSize, decodingOptions)
            )
        } catch let error as WireError {
            failure = error
            throw error
        }
    }

    /// Decodes the frame of `raw` at `index` (moved past it; past the preface's bytes too).
    private static func decodeNext(
        _ raw: UnsafeRawBufferPointer, at index: inout Int, prefaceRemaining: inout Int, consumedTotal: inout Int,
        limits: (maxFrameSize: Int, maxHeaderSize: Int, options: ProtobufDecodingOptions)
    ) throws -> Frame? {
        if prefaceRemaining > 0 {
            let preface = FrameHeader.clientPreface
            let start = preface.count - prefaceRemaining
            while prefaceRemaining > 0 && index < raw.count {
                guard raw[index] == preface[preface.count - prefaceRemaining] else {
                    throw WireError(
                        code: .invalidPreface,
                        message: "the connection does not start with the protocol preface RGW1\\r\\n\\r\\n; is the client speaking this protocol (and TLS)?",
                        offset: start
                    )
                }
                index += 1
                consumedTotal += 1
                prefaceRemaining -= 1
            }
            if prefaceRemaining > 0 { return nil }
        }
        let available = raw.count - index
        guard available >= FrameHeader.size else { return nil }
        let headerOffset = consumedTotal
        let base = index
        let length = Int(raw[base]) << 24 | Int(raw[base + 1]) << 16 | Int(raw[base + 2]) << 8 | Int(raw[base + 3])
        let rawStreamID = UInt32(raw[base + 6]) << 24 | UInt32(raw[base + 7]) << 16 | UInt32(raw[base + 8]) << 8 | UInt32(raw[base + 9])
        let type = FrameType(rawValue: raw[base + 4])
        let flags = FrameFlags(rawValue: raw[base + 5])
        try checkHeader(
            length: length, type: type, flags: flags, streamID: rawStreamID, maxFrameSize: limits.maxFrameSize, maxHeaderSize: limits.maxHeaderSize,
            offset: headerOffset
        )
        guard available - FrameHeader.size >= length else { return nil }

        let payloadStart = index + FrameHeader.size
        let payload = UnsafeRawBufferPointer(rebasing: raw[payloadStart..<(payloadStart + length)])
        let frame = try decodePayload(type: type, flags: flags, streamID: rawStreamID, payload: payload, options: limits.options, offset: headerOffset)
        index = payloadStart + length
        consumedTotal += FrameHeader.size + length
        return frame
    }

    /// Validates a header before its payload is buffered.
    static func checkHeader(length: Int, type: FrameType, flags: FrameFlags, streamID: UInt32, maxFrameSize: Int, maxHeaderSize: Int, offset: Int) throws {
        guard type.rawValue <= FrameType.windowUpdate.rawValue else {
            throw WireError(code: .unknownFrameType, message: "frame type 0x\(String(type.rawValue, radix: 16)) is not defined by protocol version 1", offset: offset)
        }
        guard length <= maxFrameSize else {
            throw WireError(code: .frameTooLarge, message: "a \(type) frame of \(length) bytes is above the max frame size of \(maxFrameSize) bytes", offset: offset)
        }
        if type == .callStart && length > maxHeaderSize {
            throw WireError(code: .headerTooLarge, message: "a CALL_START of \(length) bytes is above the max header size of \(maxHeaderSize) bytes", offset: offset)
        }
        guard streamID <= FrameHeader.maxStreamID else {
            throw WireError(code: .streamIDInvalid, message: "the reserved top bit of the stream id is set", offset: offset)
        }
        let allowedFlags: FrameFlags = type == .ping ? .ack : []
        guard flags.isSubset(of: allowedFlags) else {
            throw WireError(code: .invalidFrame, message: "\(type) frame has undefined flags 0x\(String(flags.rawValue, radix: 16))", offset: offset)
        }
        let connectionFrame = type == .settings || type == .ping || type == .goAway
        if connectionFrame && streamID != 0 {
            throw WireError(code: .invalidFrame, message: "\(type) frame must be on stream 0, not \(streamID)", offset: offset)
        }
        if !connectionFrame && type != .windowUpdate && streamID == 0 {
            throw WireError(code: .streamIDInvalid, message: "\(type) frame needs a stream id, got 0", offset: offset)
        }
        switch type {
        case .ping where length != 8:
            throw WireError(code: .invalidFrame, message: "PING payload must be 8 bytes, not \(length)", offset: offset)
        case .windowUpdate where length != 4:
            throw WireError(code: .invalidFrame, message: "WINDOW_UPDATE payload must be 4 bytes, not \(length)", offset: offset)
        case .halfClose where length != 0:
            throw WireError(code: .invalidFrame, message: "HALF_CLOSE payload must be empty, not \(length) bytes", offset: offset)
        default:
            break
        }
    }

    static func decodePayload(type: FrameType, flags: FrameFlags, streamID: UInt32, payload: UnsafeRawBufferPointer, options: ProtobufDecodingOptions, offset: Int) throws -> Frame {
        func decode<Message: ProtobufMessage>(_ type: Message.Type) throws -> Message {
            do {
                return try Message(serializedBytes: payload, options: options)
            } catch var error as WireError {
                error.message = "\(Message.protoMessageName) payload: \(error.message)"
                error.offset = offset + FrameHeader.size + (error.offset ?? 0)
                throw error
            }
        }
        switch type {
        case .settings:
            return .settings(try decode(ReaderGatewayV1.Settings.self))
        case .callStart:
            return .callStart(streamID: streamID, try decode(ReaderGatewayV1.CallStart.self))
        case .message:
            return .message(streamID: streamID, Array(payload))
        case .halfClose:
            return .halfClose(streamID: streamID)
        case .endOfCall:
            return .endOfCall(streamID: streamID, try decode(ReaderGatewayV1.CallEnd.self))
        case .cancel:
            return .cancel(streamID: streamID, try decode(ReaderGatewayV1.Status.self))
        case .ping:
            return .ping(ack: flags.contains(.ack), payload: UInt64(bigEndian: payload.loadUnaligned(as: UInt64.self)))
        case .goAway:
            return .goAway(try decode(ReaderGatewayV1.GoAway.self))
        default:
            let increment = UInt32(bigEndian: payload.loadUnaligned(as: UInt32.self))
            guard increment >= 1, Int64(increment) <= FrameHeader.maxWindow else {
                throw WireError(code: .invalidFrame, message: "WINDOW_UPDATE increment must be 1...2^31-1, got \(increment)", offset: offset)
            }
            return .windowUpdate(streamID: streamID, increment: increment)
        }
    }
}
