/// Appends frames to an output buffer.
///
/// Payloads that are protobuf messages are encoded into a scratch writer
/// (raw memory, no per-byte bookkeeping), then header and payload are
/// appended to the output in one go.
public enum FrameEncoder {
    /// Appends a frame header for a payload of `length` bytes.
    @inline(__always)
    public static func appendHeader(length: Int, type: FrameType, flags: FrameFlags = [], streamID: UInt32, to buffer: inout [UInt8]) {
        let length = UInt32(truncatingIfNeeded: length)
        buffer.append(UInt8(truncatingIfNeeded: length >> 24))
        buffer.append(UInt8(truncatingIfNeeded: length >> 16))
        buffer.append(UInt8(truncatingIfNeeded: length >> 8))
        buffer.append(UInt8(truncatingIfNeeded: length))
        buffer.append(type.rawValue)
        buffer.append(flags.rawValue)
        buffer.append(UInt8(truncatingIfNeeded: streamID >> 24))
        buffer.append(UInt8(truncatingIfNeeded: streamID >> 16))
        buffer.append(UInt8(truncatingIfNeeded: streamID >> 8))
        buffer.append(UInt8(truncatingIfNeeded: streamID))
    }

    /// Appends a frame whose payload is `message` in protobuf wire format, and
    /// returns the payload length.
    @discardableResult
    public static func append<Message: ProtobufMessage>(
        type: FrameType,
        streamID: UInt32,
        message: Message,
        to buffer: inout [UInt8]
    ) -> Int {
        var writer = ProtobufWriter()
        message.encode(to: &writer)
        appendHeader(length: writer.count, type: type, streamID: streamID, to: &buffer)
        writer.append(to: &buffer)
        return writer.count
    }

    /// Appends a frame with raw payload bytes.
    public static func append(type: FrameType, flags: FrameFlags = [], streamID: UInt32, payload: [UInt8], to buffer: inout [UInt8]) {
        appendHeader(length: payload.count, type: type, flags: flags, streamID: streamID, to: &buffer)
        buffer.append(contentsOf: payload)
    }

    /// Appends any frame.
    public static func append(_ frame: Frame, to buffer: inout [UInt8]) {
        switch frame {
        case .settings(let settings):
            append(type: .settings, streamID: 0, message: settings, to: &buffer)
        case .callStart(let id, let start):
            append(type: .callStart, streamID: id, message: start, to: &buffer)
        case .message(let id, let payload):
            append(type: .message, streamID: id, payload: payload, to: &buffer)
        case .halfClose(let id):
            appendHeader(length: 0, type: .halfClose, streamID: id, to: &buffer)
        case .endOfCall(let id, let end):
            append(type: .endOfCall, streamID: id, message: end, to: &buffer)
        case .cancel(let id, let status):
            append(type: .cancel, streamID: id, message: status, to: &buffer)
        case .ping(let ack, let payload):
            appendHeader(length: 8, type: .ping, flags: ack ? .ack : [], streamID: 0, to: &buffer)
            withUnsafeBytes(of: payload.bigEndian) { buffer.append(contentsOf: $0) }
        case .goAway(let goAway):
            append(type: .goAway, streamID: 0, message: goAway, to: &buffer)
        case .windowUpdate(let id, let increment):
            appendHeader(length: 4, type: .windowUpdate, streamID: id, to: &buffer)
            withUnsafeBytes(of: increment.bigEndian) { buffer.append(contentsOf: $0) }
        }
    }

    /// The frame's bytes.
    public static func encode(_ frame: Frame) -> [UInt8] {
        var buffer: [UInt8] = []
        append(frame, to: &buffer)
        return buffer
    }
}
