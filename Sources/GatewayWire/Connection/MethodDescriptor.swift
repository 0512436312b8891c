/// The shape of a call: how many messages flow each way.
public enum RPCKind: Sendable, Hashable {
    /// One request, one response.
    case unary
    /// One request, a stream of responses.
    case serverStreaming
    /// A stream of requests, one response.
    case clientStreaming
    /// Streams both ways.
    case bidirectionalStreaming
}

/// A method of a service, named by its path `/<package>.<Service>/<Method>`.
public struct MethodDescriptor: Sendable, Hashable, CustomStringConvertible {
    /// The fully qualified service, e.g. `readergateway.v1.Sdk`.
    public var service: String
    /// The method, e.g. `ConnectReader`.
    public var method: String
    /// Streaming shape.
    public var kind: RPCKind

    public init(service: String, method: String, kind: RPCKind) {
        self.service = service
        self.method = method
        self.kind = kind
    }

    /// The path carried by CALL_START, e.g. `/readergateway.v1.Sdk/ConnectReader`.
    public var path: String { "/\(service)/\(method)" }

    public var description: String { path }
}

/// A method with its request and response message types.
public struct ProtobufMethod<Request: ProtobufMessage, Response: ProtobufMessage>: Sendable {
    /// The method's name, path and shape.
    public let descriptor: MethodDescriptor

    public init(service: String, method: String, kind: RPCKind) {
        self.descriptor = MethodDescriptor(service: service, method: method, kind: kind)
    }

    /// The path carried by CALL_START.
    public var path: String { descriptor.path }
}

extension ProtobufMethod {
    /// Decodes a MESSAGE payload of this method's request type.
    public func decodeRequest(_ payload: [UInt8], options: ProtobufDecodingOptions = .init()) throws -> Request {
        try Request(serializedBytes: payload, options: options)
    }

    /// Decodes a MESSAGE payload of this method's response type.
    public func decodeResponse(_ payload: [UInt8], options: ProtobufDecodingOptions = .init()) throws -> Response {
        try Response(serializedBytes: payload, options: options)
    }
}
