/// Writes protobuf wire format into a growing byte array.
///
/// Fields are appended in the order the caller writes them (generated code
/// writes them in field-number order). Embedded messages are written in place
/// with a one-byte length placeholder that is widened afterwards when the
/// message turns out to be 128 bytes or longer, so no size pass is needed.
public struct ProtobufWriter: Sendable {
    /// The bytes written so far.
    public var bytes: [UInt8]

    /// A writer with room for `capacity` bytes before it reallocates.
    public init(capacity: Int = 128) {
        self.bytes = []
        self.bytes.reserveCapacity(capacity)
    }

    /// A writer that appends to `bytes` (for example after a frame header).
    public init(appendingTo bytes: consuming [UInt8]) {
        self.bytes = bytes
    }

    // MARK: primitives

    /// Appends `value` as a base-128 varint.
    @inline(__always)
    public mutating func writeVarint(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(truncatingIfNeeded: value))
    }

    /// Appends a field key.
    @inline(__always)
    public mutating func writeTag(field: Int, wireType: ProtobufWireType) {
        writeVarint(UInt64(field) << 3 | UInt64(wireType.rawValue))
    }

    /// Appends 4 bytes, little-endian.
    @inline(__always)
    public mutating func writeFixed32(_ value: UInt32) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    /// Appends 8 bytes, little-endian.
    @inline(__always)
    public mutating func writeFixed64(_ value: UInt64) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    /// Appends raw bytes (already encoded fields).
    public mutating func writeRaw(_ raw: [UInt8]) {
        if !raw.isEmpty { bytes.append(contentsOf: raw) }
    }

    /// The number of bytes `value` takes as a varint.
    @inline(__always)
    public static func varintSize(_ value: UInt64) -> Int {
        // 1 byte per started group of 7 bits, at least 1.
        let bits = 64 - (value | 1).leadingZeroBitCount
        return (bits + 6) / 7
    }

    /// Writes a length prefix for the bytes `body` appends.
    @inline(__always)
    public mutating func writeLengthPrefixed(_ body: (inout ProtobufWriter) -> Void) {
        let lengthIndex = bytes.count
        bytes.append(0)
        body(&self)
        patchLength(at: lengthIndex)
    }

    @inline(__always)
    private mutating func patchLength(at lengthIndex: Int) {
        let length = bytes.count - lengthIndex - 1
        if length < 0x80 {
            bytes[lengthIndex] = UInt8(truncatingIfNeeded: length)
            return
        }
        let size = Self.varintSize(UInt64(length))
        bytes.insert(contentsOf: repeatElement(0, count: size - 1), at: lengthIndex + 1)
        var value = UInt64(length)
        var position = lengthIndex
        while value >= 0x80 {
            bytes[position] = UInt8(truncatingIfNeeded: value) | 0x80
            value >>= 7
            position += 1
        }
        bytes[position] = UInt8(truncatingIfNeeded: value)
    }

    // MARK: fields

    /// Writes a proto3 singular field unless it holds its default value.
    @inline(__always)
    public mutating func writeSingular<Field: ProtobufField>(_ field: Field.Type, _ value: Field.Value, field number: Int) {
        guard !Field.isDefault(value) else { return }
        writeTag(field: number, wireType: Field.wireType)
        Field.write(value, to: &self)
    }

    /// Writes a field whatever its value (oneof members, `optional` fields).
    @inline(__always)
    public mutating func writeAlways<Field: ProtobufField>(_ field: Field.Type, _ value: Field.Value, field number: Int) {
        writeTag(field: number, wireType: Field.wireType)
        Field.write(value, to: &self)
    }

    /// Writes a repeated field one key per value (strings, bytes, `packed = false`).
    public mutating func writeRepeated<Field: ProtobufField>(_ field: Field.Type, _ values: [Field.Value], field number: Int) {
        for value in values {
            writeTag(field: number, wireType: Field.wireType)
            Field.write(value, to: &self)
        }
    }

    /// Writes a repeated numeric field packed: one key, one length, the values.
    public mutating func writePacked<Field: ProtobufField>(_ field: Field.Type, _ values: [Field.Value], field number: Int) {
        guard !values.isEmpty else { return }
        writeTag(field: number, wireType: .lengthDelimited)
        writeLengthPrefixed { writer in
            for value in values { Field.write(value, to: &writer) }
        }
    }

    /// Writes an embedded message (even an empty one: presence is meaningful).
    public mutating func writeMessage<Message: ProtobufMessage>(_ message: Message, field number: Int) {
        writeTag(field: number, wireType: .lengthDelimited)
        let lengthIndex = bytes.count
        bytes.append(0)
        message.encode(to: &self)
        patchLength(at: lengthIndex)
    }
}
