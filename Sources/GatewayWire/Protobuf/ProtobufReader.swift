/// Reads protobuf wire format from a borrowed buffer, without copying it.
///
/// A reader walks one buffer front to back. Nested messages narrow its limit
/// (no sub-buffer is made), so decoding is linear in the input and allocates
/// only what the decoded values themselves need. Every read checks the limit
/// first: truncated input throws ``WireError/Code/truncated``, never reads
/// past the end.
///
/// A reader borrows its buffer: use it only inside the `withUnsafeBytes`
/// scope that made it (``ProtobufMessage/init(serializedBytes:options:)``
/// does this for you).
public struct ProtobufReader {
    /// The largest field number protobuf allows.
    public static let maxFieldNumber = (1 << 29) - 1

    private let base: UnsafeRawBufferPointer
    private var index: Int
    private var limit: Int
    private var depth: Int
    private let maxDepth: Int

    /// A reader over `buffer`, refusing messages nested deeper than `maxDepth`.
    public init(_ buffer: UnsafeRawBufferPointer, maxDepth: Int = ProtobufDecodingOptions.defaultMaxDepth) {
        self.base = buffer
        self.index = 0
        self.limit = buffer.count
        self.depth = 0
        self.maxDepth = maxDepth
    }

    /// Bytes consumed so far.
    public var offset: Int { index }

    /// Whether the current message has no bytes left.
    public var isAtEnd: Bool { index >= limit }

    // MARK: keys

    /// The next field's key, or nil at the end of the current message.
    @inline(__always)
    public mutating func nextTag() throws -> ProtobufTag? {
        guard index < limit else { return nil }
        let start = index
        let first = base[index]
        // Fast path: a one-byte key (field numbers 1 to 15) with a valid wire type.
        if first < 0x80, first >= 8, let wireType = ProtobufWireType(rawValue: first & 7), wireType != .endGroup {
            index += 1
            return ProtobufTag(fieldNumber: Int(first >> 3), wireType: wireType, offset: start)
        }
        return try nextTagSlow()
    }

    @inline(never)
    private mutating func nextTagSlow() throws -> ProtobufTag? {
        let start = index
        let key = try readVarint()
        let fieldNumber = key >> 3
        guard fieldNumber >= 1, fieldNumber <= UInt64(Self.maxFieldNumber) else {
            throw WireError(code: .invalidFieldNumber, message: "field number \(fieldNumber) is outside 1...\(Self.maxFieldNumber)", offset: start)
        }
        guard let wireType = ProtobufWireType(rawValue: UInt8(truncatingIfNeeded: key & 7)) else {
            throw WireError(code: .invalidWireType, message: "wire type \(key & 7) of field \(fieldNumber) does not exist", offset: start)
        }
        if wireType == .endGroup {
            throw WireError(code: .unexpectedEndGroup, message: "END_GROUP for field \(fieldNumber) without a START_GROUP", offset: start)
        }
        return ProtobufTag(fieldNumber: Int(fieldNumber), wireType: wireType, offset: start)
    }

    // MARK: primitives

    /// Reads a base-128 varint of at most 10 bytes.
    @inline(__always)
    public mutating func readVarint() throws -> UInt64 {
        // Fast path: one byte (field keys, small numbers, lengths under 128).
        if index < limit {
            let first = base[index]
            if first < 0x80 {
                index += 1
                return UInt64(first)
            }
        }
        return try readVarintSlow()
    }

    @inline(never)
    private mutating func readVarintSlow() throws -> UInt64 {
        let start = index
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard index < limit else {
                throw WireError(code: .truncated, message: "the input ends inside a varint", offset: start)
            }
            let byte = base[index]
            index += 1
            if shift == 63 {
                guard byte & 0x80 == 0 else {
                    throw WireError(code: .varintTooLong, message: "a varint runs past 10 bytes", offset: start)
                }
                guard byte <= 1 else {
                    throw WireError(code: .varintOverflow, message: "a varint carries more than 64 bits", offset: start)
                }
            }
            result |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return result }
            shift += 7
        }
    }

    /// Reads 4 little-endian bytes.
    public mutating func readFixed32() throws -> UInt32 {
        guard limit - index >= 4 else {
            throw WireError(code: .truncated, message: "the input ends inside a fixed32", offset: index)
        }
        let value = base.loadUnaligned(fromByteOffset: index, as: UInt32.self)
        index += 4
        return UInt32(littleEndian: value)
    }

    /// Reads 8 little-endian bytes.
    public mutating func readFixed64() throws -> UInt64 {
        guard limit - index >= 8 else {
            throw WireError(code: .truncated, message: "the input ends inside a fixed64", offset: index)
        }
        let value = base.loadUnaligned(fromByteOffset: index, as: UInt64.self)
        index += 8
        return UInt64(littleEndian: value)
    }

    /// Reads a length prefix and returns the bytes it covers (borrowed).
    public mutating func readLengthDelimited() throws -> UnsafeRawBufferPointer {
        let start = index
        let length = try readVarint()
        guard length <= UInt64(limit - index) else {
            throw WireError(code: .truncated, message: "a length of \(length) runs past the end of its message (\(limit - index) bytes left)", offset: start)
        }
        let count = Int(length)
        let slice = UnsafeRawBufferPointer(rebasing: base[index..<(index + count)])
        index += count
        return slice
    }

    // MARK: fields

    @inline(__always)
    private func expect(_ tag: ProtobufTag, _ wireType: ProtobufWireType) throws {
        guard tag.wireType == wireType else {
            throw WireError(
                code: .wrongWireType,
                message: "field \(tag.fieldNumber) has wire type \(tag.wireType) where \(wireType) is declared",
                offset: tag.offset
            )
        }
    }

    /// Reads one value of a singular field.
    public mutating func read<Field: ProtobufField>(_ field: Field.Type, _ tag: ProtobufTag) throws -> Field.Value {
        try expect(tag, Field.wireType)
        return try Field.read(from: &self)
    }

    /// Reads a repeated field's values, packed or not, appending to `values`.
    public mutating func readRepeated<Field: ProtobufField>(_ field: Field.Type, _ tag: ProtobufTag, into values: inout [Field.Value]) throws {
        if tag.wireType == .lengthDelimited && Field.wireType != .lengthDelimited {
            let start = index
            let length = try readVarint()
            guard length <= UInt64(limit - index) else {
                throw WireError(code: .truncated, message: "a packed field of \(length) bytes runs past the end of its message", offset: start)
            }
            let end = index + Int(length)
            let savedLimit = limit
            limit = end
            defer { limit = savedLimit }
            while index < end {
                values.append(try Field.read(from: &self))
            }
            return
        }
        try expect(tag, Field.wireType)
        values.append(try Field.read(from: &self))
    }

    /// Reads an embedded message, checking the nesting limit.
    public mutating func readMessage<Message: ProtobufMessage>(_ tag: ProtobufTag, as type: Message.Type) throws -> Message {
        try expect(tag, .lengthDelimited)
        let start = index
        let length = try readVarint()
        guard length <= UInt64(limit - index) else {
            throw WireError(code: .truncated, message: "an embedded \(Message.protoMessageName) of \(length) bytes runs past the end of its message", offset: start)
        }
        guard depth < maxDepth else {
            throw WireError(code: .nestingTooDeep, message: "messages nest deeper than \(maxDepth) levels", offset: start)
        }
        let savedLimit = limit
        limit = index + Int(length)
        depth += 1
        let message = try Message(from: &self)
        depth -= 1
        limit = savedLimit
        return message
    }

    /// Reads one element of a repeated message field, appending it to `messages`.
    @inline(__always)
    public mutating func readRepeatedMessage<Message: ProtobufMessage>(_ tag: ProtobufTag, into messages: inout [Message]) throws {
        if messages.isEmpty { messages.reserveCapacity(4) }
        messages.append(try readMessage(tag, as: Message.self))
    }

    /// Skips the value of an unknown field and appends its key and value to
    /// `unknownFields`, so re-encoding the message writes it back unchanged.
    public mutating func skipField(_ tag: ProtobufTag, preservingInto unknownFields: inout [UInt8]) throws {
        try skipValue(tag)
        unknownFields.append(contentsOf: UnsafeRawBufferPointer(rebasing: base[tag.offset..<index]))
    }

    /// Skips the value of a field the caller does not read (nothing kept).
    public mutating func skipField(_ tag: ProtobufTag) throws {
        try skipValue(tag)
    }

    private mutating func skipValue(_ tag: ProtobufTag) throws {
        switch tag.wireType {
        case .varint: _ = try readVarint()
        case .fixed64: _ = try readFixed64()
        case .fixed32: _ = try readFixed32()
        case .lengthDelimited: _ = try readLengthDelimited()
        case .startGroup:
            guard depth < maxDepth else {
                throw WireError(code: .nestingTooDeep, message: "groups nest deeper than \(maxDepth) levels", offset: tag.offset)
            }
            depth += 1
            defer { depth -= 1 }
            while true {
                guard index < limit else {
                    throw WireError(code: .truncated, message: "group \(tag.fieldNumber) has no END_GROUP", offset: tag.offset)
                }
                let start = index
                let key = try readVarint()
                let fieldNumber = key >> 3
                guard fieldNumber >= 1, fieldNumber <= UInt64(Self.maxFieldNumber) else {
                    throw WireError(code: .invalidFieldNumber, message: "field number \(fieldNumber) is outside 1...\(Self.maxFieldNumber)", offset: start)
                }
                guard let wireType = ProtobufWireType(rawValue: UInt8(truncatingIfNeeded: key & 7)) else {
                    throw WireError(code: .invalidWireType, message: "wire type \(key & 7) does not exist", offset: start)
                }
                if wireType == .endGroup {
                    guard fieldNumber == UInt64(tag.fieldNumber) else {
                        throw WireError(code: .unexpectedEndGroup, message: "END_GROUP \(fieldNumber) closes group \(tag.fieldNumber)", offset: start)
                    }
                    return
                }
                try skipValue(ProtobufTag(fieldNumber: Int(fieldNumber), wireType: wireType, offset: start))
            }
        case .endGroup:
            throw WireError(code: .unexpectedEndGroup, message: "END_GROUP without a START_GROUP", offset: tag.offset)
        }
    }
}

/// Limits a decoder enforces.
public struct ProtobufDecodingOptions: Sendable, Hashable {
    /// Nesting limit when none is given: 64 levels of embedded messages.
    public static let defaultMaxDepth = 64

    /// How deep messages (and groups inside unknown fields) may nest.
    public var maxDepth: Int

    public init(maxDepth: Int = ProtobufDecodingOptions.defaultMaxDepth) {
        self.maxDepth = maxDepth
    }
}
