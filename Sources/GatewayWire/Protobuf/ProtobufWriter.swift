/// Writes protobuf wire format into a growing buffer it owns.
///
/// The buffer is raw memory grown by doubling, so writing a byte is a bounds
/// check and a store (no per-byte array bookkeeping). Fields are appended in
/// the order the caller writes them (generated code writes them in
/// field-number order). Embedded messages are written in place with a
/// one-byte length placeholder that is widened afterwards when the message
/// turns out to be 128 bytes or longer, so no size pass is needed.
///
/// Take the result with ``bytes`` or ``append(to:)``.
public struct ProtobufWriter: ~Copyable {
    private var base: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    /// Bytes written so far.
    public private(set) var count: Int

    /// A writer with room for `capacity` bytes before it grows.
    public init(capacity: Int = 256) {
        self.capacity = Swift.max(capacity, 16)
        self.base = .allocate(capacity: self.capacity)
        self.count = 0
    }

    deinit { base.deallocate() }

    /// A copy of the bytes written.
    public var bytes: [UInt8] {
        Array(UnsafeBufferPointer(start: base, count: count))
    }

    /// Appends the bytes written to `buffer`.
    public func append(to buffer: inout [UInt8]) {
        buffer.append(contentsOf: UnsafeBufferPointer(start: base, count: count))
    }

    @inline(__always)
    private mutating func reserve(_ extra: Int) {
        if capacity - count < extra { grow(extra) }
    }

    @inline(never)
    private mutating func grow(_ extra: Int) {
        let newCapacity = Swift.max(capacity * 2, count + extra)
        let newBase = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        newBase.update(from: base, count: count)
        base.deallocate()
        base = newBase
        capacity = newCapacity
    }

    // MARK: primitives

    /// Appends `value` as a base-128 varint.
    @inline(__always)
    public mutating func writeVarint(_ value: UInt64) {
        reserve(10)
        var value = value
        var position = count
        while value >= 0x80 {
            base[position] = UInt8(truncatingIfNeeded: value) | 0x80
            value >>= 7
            position += 1
        }
        base[position] = UInt8(truncatingIfNeeded: value)
        count = position + 1
    }

    /// Appends a field key.
    @inline(__always)
    public mutating func writeTag(field: Int, wireType: ProtobufWireType) {
        writeVarint(UInt64(field) << 3 | UInt64(wireType.rawValue))
    }

    /// Appends 4 bytes, little-endian.
    @inline(__always)
    public mutating func writeFixed32(_ value: UInt32) {
        reserve(4)
        UnsafeMutableRawPointer(base + count).storeBytes(of: value.littleEndian, as: UInt32.self)
        count += 4
    }

    /// Appends 8 bytes, little-endian.
    @inline(__always)
    public mutating func writeFixed64(_ value: UInt64) {
        reserve(8)
        UnsafeMutableRawPointer(base + count).storeBytes(of: value.littleEndian, as: UInt64.self)
        count += 8
    }

    /// Appends raw bytes.
    @inline(__always)
    public mutating func writeBytes(_ raw: UnsafeRawBufferPointer) {
        guard let source = raw.baseAddress, raw.count > 0 else { return }
        reserve(raw.count)
        UnsafeMutableRawPointer(base + count).copyMemory(from: source, byteCount: raw.count)
        count += raw.count
    }

    /// Appends raw bytes (already encoded fields).
    @inline(__always)
    public mutating func writeRaw(_ raw: [UInt8]) {
        if !raw.isEmpty { raw.withUnsafeBytes { writeBytes($0) } }
    }

    /// Appends a length-prefixed string (UTF-8).
    @inline(__always)
    public mutating func writeLengthPrefixedString(_ value: String) {
        var value = value
        value.withUTF8 { utf8 in
            writeVarint(UInt64(utf8.count))
            writeBytes(UnsafeRawBufferPointer(utf8))
        }
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
        let lengthIndex = beginLengthPrefix()
        body(&self)
        endLengthPrefix(lengthIndex)
    }

    @inline(__always)
    private mutating func beginLengthPrefix() -> Int {
        reserve(1)
        let lengthIndex = count
        count += 1
        return lengthIndex
    }

    @inline(__always)
    private mutating func endLengthPrefix(_ lengthIndex: Int) {
        let length = count - lengthIndex - 1
        if length < 0x80 {
            base[lengthIndex] = UInt8(truncatingIfNeeded: length)
            return
        }
        widenLengthPrefix(lengthIndex, length: length)
    }

    @inline(never)
    private mutating func widenLengthPrefix(_ lengthIndex: Int, length: Int) {
        let size = Self.varintSize(UInt64(length))
        reserve(size - 1)
        (base + lengthIndex + size).update(from: base + lengthIndex + 1, count: length)
        count += size - 1
        var value = UInt64(length)
        var position = lengthIndex
        while value >= 0x80 {
            base[position] = UInt8(truncatingIfNeeded: value) | 0x80
            value >>= 7
            position += 1
        }
        base[position] = UInt8(truncatingIfNeeded: value)
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
        let lengthIndex = beginLengthPrefix()
        for value in values { Field.write(value, to: &self) }
        endLengthPrefix(lengthIndex)
    }

    /// Writes an embedded message (even an empty one: presence is meaningful).
    public mutating func writeMessage<Message: ProtobufMessage>(_ message: Message, field number: Int) {
        writeTag(field: number, wireType: .lengthDelimited)
        let lengthIndex = beginLengthPrefix()
        message.encode(to: &self)
        endLengthPrefix(lengthIndex)
    }
}
