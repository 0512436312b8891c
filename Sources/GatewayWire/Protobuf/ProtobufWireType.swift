/// The wire type in the low three bits of a protobuf field key.
public enum ProtobufWireType: UInt8, Sendable {
    /// int32, int64, uint32, uint64, sint32, sint64, bool, enum.
    case varint = 0
    /// fixed64, sfixed64, double.
    case fixed64 = 1
    /// string, bytes, messages, packed repeated fields.
    case lengthDelimited = 2
    /// Deprecated groups (skipped, never produced).
    case startGroup = 3
    /// Deprecated groups (skipped, never produced).
    case endGroup = 4
    /// fixed32, sfixed32, float.
    case fixed32 = 5
}

/// A decoded field key: the field number, its wire type, and where it began.
public struct ProtobufTag: Sendable, Equatable {
    /// The field number, 1 to 2^29 - 1.
    public var fieldNumber: Int
    /// The wire type of the value that follows.
    public var wireType: ProtobufWireType
    /// Offset of the key's first byte in the input (to preserve unknown fields).
    public var offset: Int
}
