/// A protobuf message type (generated from a .proto file).
///
/// Its `description` prints the fields that are set, secrets redacted (``ProtobufDescription``).
public protocol ProtobufMessage: Sendable, Equatable, CustomStringConvertible {
    /// The fully qualified protobuf name, e.g. `readergateway.v1.Reader`.
    static var protoMessageName: String { get }
    /// A message with every field at its default.
    init()
    /// Decodes the fields up to the reader's current limit.
    init(from reader: inout ProtobufReader) throws
    /// Appends the message's fields (not a length prefix).
    func encode(to writer: inout ProtobufWriter)
    /// Fields this version does not know, kept as raw bytes.
    var unknownFields: [UInt8] { get set }
}

extension ProtobufMessage {
    /// Decodes a message from its serialized bytes.
    ///
    /// Throws ``WireError`` with a precise code (truncated, varint too long,
    /// wrong wire type, invalid UTF-8, nesting too deep, ...) for bad input.
    public init(serializedBytes bytes: [UInt8], options: ProtobufDecodingOptions = .init()) throws {
        self = try bytes.withUnsafeBytes { buffer in
            try Self(serializedBytes: buffer, options: options)
        }
    }

    /// Decodes a message from borrowed bytes.
    public init(serializedBytes buffer: UnsafeRawBufferPointer, options: ProtobufDecodingOptions = .init()) throws {
        var reader = ProtobufReader(buffer, maxDepth: options.maxDepth)
        self = try Self(from: &reader)
    }

    /// The message in protobuf wire format.
    public func serializedBytes() -> [UInt8] {
        var writer = ProtobufWriter()
        encode(to: &writer)
        return writer.bytes
    }

    /// Appends the message in protobuf wire format to `bytes`.
    public func serialize(appendingTo bytes: inout [UInt8]) {
        var writer = ProtobufWriter()
        encode(to: &writer)
        writer.append(to: &bytes)
    }
}

/// A protobuf enum: open, so values a newer peer sends survive a round trip.
public protocol ProtobufEnum: RawRepresentable, Sendable, Hashable, CustomStringConvertible where RawValue == Int32 {
    init(rawValue: Int32)
    /// The value's name in the .proto file, or nil when this version does not know it.
    var protoName: String? { get }
}

extension ProtobufEnum {
    public var description: String { protoName ?? "\(rawValue)" }
}

/// An immutable box that lets a message contain itself (recursive fields).
public final class ProtobufBox<Value: Sendable & Equatable>: Sendable, Equatable {
    /// The boxed message.
    public let value: Value

    public init(_ value: Value) { self.value = value }

    public static func == (lhs: ProtobufBox, rhs: ProtobufBox) -> Bool {
        lhs === rhs || lhs.value == rhs.value
    }
}
