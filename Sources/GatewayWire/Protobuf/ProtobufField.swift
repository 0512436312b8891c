/// How one protobuf field type is read and written: the codec behind the
/// generated code's `reader.read(ProtobufInt32.self, tag)` and
/// `writer.writeSingular(ProtobufString.self, value, field: 3)`.
public protocol ProtobufField {
    /// The Swift type of a value.
    associatedtype Value: Sendable & Equatable
    /// The wire type of one (unpacked) value.
    static var wireType: ProtobufWireType { get }
    /// Reads one value (after its key).
    static func read(from reader: inout ProtobufReader) throws -> Value
    /// Writes one value (after its key).
    static func write(_ value: Value, to writer: inout ProtobufWriter)
    /// Whether `value` is the proto3 default, which singular fields omit.
    static func isDefault(_ value: Value) -> Bool
}

/// `int32`: a varint, negative values sign-extended to 10 bytes.
public enum ProtobufInt32: ProtobufField {
    public static var wireType: ProtobufWireType { .varint }
    @inline(__always) public static func read(from reader: inout ProtobufReader) throws -> Int32 {
        Int32(truncatingIfNeeded: try reader.readVarint())
    }
    @inline(__always) public static func write(_ value: Int32, to writer: inout ProtobufWriter) {
        writer.writeVarint(UInt64(bitPattern: Int64(value)))
    }
    @inline(__always) public static func isDefault(_ value: Int32) -> Bool { value == 0 }
}

/// `int64`: a varint, two's complement.
public enum ProtobufInt64: ProtobufField {
    public static var wireType: ProtobufWireType { .varint }
    @inline(__always) public static func read(from reader: inout ProtobufReader) throws -> Int64 {
        Int64(bitPattern: try reader.readVarint())
    }
    @inline(__always) public static func write(_ value: Int64, to writer: inout ProtobufWriter) {
        writer.writeVarint(UInt64(bitPattern: value))
    }
    @inline(__always) public static func isDefault(_ value: Int64) -> Bool { value == 0 }
}

/// `uint32`: a varint.
public enum ProtobufUInt32: ProtobufField {
    public static var wireType: ProtobufWireType { .varint }
    @inline(__always) public static func read(from reader: inout ProtobufReader) throws -> UInt32 {
        UInt32(truncatingIfNeeded: try reader.readVarint())
    }
    @inline(__always) public static func write(_ value: UInt32, to writer: inout ProtobufWriter) {
        writer.writeVarint(UInt64(value))
    }
    @inline(__always) public static func isDefault(_ value: UInt32) -> Bool { value == 0 }
}

/// `uint64`: a varint.
public enum ProtobufUInt64: ProtobufField {
    public static var wireType: ProtobufWireType { .varint }
    @inline(__always) public static func read(from reader: inout ProtobufReader) throws -> UInt64 {
        try reader.readVarint()
    }
    @inline(__always) public static func write(_ value: UInt64, to writer: inout ProtobufWriter) {
        writer.writeVarint(value)
    }
    @inline(__always) public static func isDefault(_ value: UInt64) -> Bool { value == 0 }
}

/// `sint32`: a ZigZag-encoded varint.
public enum ProtobufSInt32: ProtobufField {
    public static var wireType: ProtobufWireType { .varint }
    @inline(__always) public static func read(from reader: inout ProtobufReader) throws -> Int32 {
        let raw = UInt32(truncatingIfNeeded: try reader.readVarint())
        return Int32(bitPattern: (raw >> 1) ^ (0 &- (raw & 1)))
    }
    @inline(__always) public static func write(_ value: Int32, to writer: inout ProtobufWriter) {
        writer.writeVarint(UInt64(UInt32(bitPattern: (value << 1) ^ (value >> 31))))
    }
    @inline(__always) public static func isDefault(_ value: Int32) -> Bool { value == 0 }
}

/// `sint64`: a ZigZag-encoded varint.
public enum ProtobufSInt64: ProtobufField {
    public static var wireType: ProtobufWireType { .varint }
    @inline(__always) public static func read(from reader: inout ProtobufReader) throws -> Int64 {
        let raw = try reader.readVarint()
        return Int64(bitPattern: (raw >> 1) ^ (0 &- (raw & 1)))
    }
    @inline(__always) public static func write(_ value: Int64, to writer: inout ProtobufWriter) {
        writer.writeVarint(UInt64(bitPattern: (value << 1) ^ (value >> 63)))
    }
    @inline(__always) public static func isDefault(_ value: Int64) -> Bool { value == 0 }
}

/// `fixed32`: 4 bytes little-endian.
public enum ProtobufFixed32: ProtobufField {
    public static var wireType: ProtobufWireType { .fixed32 }
    @inline(__always) public static func read(from reader: inout ProtobufReader) throws -> UInt32 { try reader.readFixed32() }
    @inline(__always) public static func write(_ value: UInt32, to writer: inout ProtobufWriter) { writer.writeFixed32(value) }
    @inline(__always) public static func isDefault(_ value: UInt32) -> Bool { value == 0 }
}

/// `fixed64`: 8 bytes little-endian.
public enum ProtobufFixed64: ProtobufField {
    public static var wireType: ProtobufWireType { .fixed64 }
    @inline(__always) public static func read(from reader: inout ProtobufReader) throws -> UInt64 { try reader.readFixed64() }
    @inline(__always) public static func write(_ value: UInt64, to writer: inout ProtobufWriter) { writer.writeFixed64(value) }
    @inline(__always) public static func isDefault(_ value: UInt64) -> Bool { value == 0 }
}

/// `sfixed32`: 4 bytes little-endian, two's complement.
public enum ProtobufSFixed32: ProtobufField {
    public static var wireType: ProtobufWireType { .fixed32 }
    @inline(__always) public static func read(from reader: inout ProtobufReader) throws -> Int32 {
        Int32(bitPattern: try reader.readFixed32())
    }
    @inline(__always) public static func write(_ value: Int32, to writer: inout ProtobufWriter) {
        writer.writeFixed32(UInt32(bitPattern: value))
    }
    @inline(__always) public static func isDefault(_ value: Int32) -> Bool { value == 0 }
}

/// `sfixed64`: 8 bytes little-endian, two's complement.
public enum ProtobufSFixed64: ProtobufField {
    public static var wireType: ProtobufWireType { .fixed64 }
    @inline(__always) public static func read(from reader: inout ProtobufReader) throws -> Int64 {
        Int64(bitPattern: try reader.readFixed64())
    }
    @inline(__always) public static func write(_ value: Int64, to writer: inout ProtobufWriter) {
        writer.writeFixed64(UInt64(bitPattern: value))
    }
    @inline(__always) public static func isDefault(_ value: Int64) -> Bool { value == 0 }
}

/// `float`: IEEE 754 binary32, little-endian. -0.0 is not the default.
public enum ProtobufFloat: ProtobufField {
    public static var wireType: ProtobufWireType { .fixed32 }
    @inline(__always) public static func read(from reader: inout ProtobufReader) throws -> Float {
        Float(bitPattern: try reader.readFixed32())
    }
    @inline(__always) public static func write(_ value: Float, to writer: inout ProtobufWriter) {
        writer.writeFixed32(value.bitPattern)
    }
    @inline(__always) public static func isDefault(_ value: Float) -> Bool { value.bitPattern == 0 }
}

/// `double`: IEEE 754 binary64, little-endian. -0.0 is not the default.
public enum ProtobufDouble: ProtobufField {
    public static var wireType: ProtobufWireType { .fixed64 }
    @inline(__always) public static func read(from reader: inout ProtobufReader) throws -> Double {
        Double(bitPattern: try reader.readFixed64())
    }
    @inline(__always) public static func write(_ value: Double, to writer: inout ProtobufWriter) {
        writer.writeFixed64(value.bitPattern)
    }
    @inline(__always) public static func isDefault(_ value: Double) -> Bool { value.bitPattern == 0 }
}

/// `bool`: a varint; any non-zero value is true.
public enum ProtobufBool: ProtobufField {
    public static var wireType: ProtobufWireType { .varint }
    @inline(__always) public static func read(from reader: inout ProtobufReader) throws -> Bool {
        try reader.readVarint() != 0
    }
    @inline(__always) public static func write(_ value: Bool, to writer: inout ProtobufWriter) {
        writer.writeVarint(value ? 1 : 0)
    }
    @inline(__always) public static func isDefault(_ value: Bool) -> Bool { !value }
}

/// `string`: length-delimited UTF-8, validated on read.
public enum ProtobufString: ProtobufField {
    public static var wireType: ProtobufWireType { .lengthDelimited }
    public static func read(from reader: inout ProtobufReader) throws -> String {
        let start = reader.offset
        let bytes = try reader.readLengthDelimited()
        if bytes.isEmpty { return "" }
        let units = bytes.assumingMemoryBound(to: UInt8.self)
        // Most strings on this wire are ASCII ids and labels: check 8 bytes at a
        // time, then build the String without the generic validating path.
        if isASCII(bytes) {
            return String(decoding: units, as: UTF8.self)
        }
        guard let string = String(validating: units, as: UTF8.self) else {
            throw WireError(code: .invalidUTF8, message: "a string field is not valid UTF-8", offset: start)
        }
        return string
    }
    @inline(__always) public static func write(_ value: String, to writer: inout ProtobufWriter) {
        writer.writeLengthPrefixedString(value)
    }
    @inline(__always) public static func isDefault(_ value: String) -> Bool { value.isEmpty }
}

@inline(__always)
private func isASCII(_ bytes: UnsafeRawBufferPointer) -> Bool {
    var index = 0
    let count = bytes.count
    var accumulated: UInt64 = 0
    while index + 8 <= count {
        accumulated |= bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self)
        index += 8
    }
    while index < count {
        accumulated |= UInt64(bytes[index])
        index += 1
    }
    return accumulated & 0x8080_8080_8080_8080 == 0
}

/// `bytes`: length-delimited, any content.
public enum ProtobufBytes: ProtobufField {
    public static var wireType: ProtobufWireType { .lengthDelimited }
    public static func read(from reader: inout ProtobufReader) throws -> [UInt8] {
        Array(try reader.readLengthDelimited())
    }
    @inline(__always) public static func write(_ value: [UInt8], to writer: inout ProtobufWriter) {
        writer.writeVarint(UInt64(value.count))
        writer.writeRaw(value)
    }
    @inline(__always) public static func isDefault(_ value: [UInt8]) -> Bool { value.isEmpty }
}

/// An enum: an `int32` varint; values this version does not know are kept.
public enum ProtobufEnumField<Enum: ProtobufEnum>: ProtobufField {
    public static var wireType: ProtobufWireType { .varint }
    @inline(__always) public static func read(from reader: inout ProtobufReader) throws -> Enum {
        Enum(rawValue: Int32(truncatingIfNeeded: try reader.readVarint()))
    }
    @inline(__always) public static func write(_ value: Enum, to writer: inout ProtobufWriter) {
        writer.writeVarint(UInt64(bitPattern: Int64(value.rawValue)))
    }
    @inline(__always) public static func isDefault(_ value: Enum) -> Bool { value.rawValue == 0 }
}
