import GatewayWire

/// How the gateway serves one method path.
///
/// Handlers run in tasks, off the event loops; they answer through the
/// ``ServerCall`` they are given, which hops back to the connection's loop.
enum MethodHandler: Sendable {
    /// One request, one response (or an error).
    case unary(@Sendable (_ request: [UInt8], _ context: CallContext) async throws(ServiceError) -> [UInt8])
    /// One request, then messages until the handler ends the call.
    case serverStreaming(@Sendable (_ request: [UInt8], _ call: ServerCall, _ context: CallContext) async -> Void)
    /// Requests as they arrive (the stream ends at HALF_CLOSE, cancel or
    /// connection loss); the handler sends messages and ends the call.
    case bidirectional(@Sendable (_ requests: AsyncStream<[UInt8]>, _ call: ServerCall, _ context: CallContext) async -> Void)
    /// One request, handled on the connection's event loop when it arrives (no
    /// task): the handler must not block and answers through the call, from any thread.
    case immediate(@Sendable (_ request: [UInt8], _ call: ServerCall, _ context: CallContext) -> Void)

    /// A unary handler with typed messages; a request that does not decode ends
    /// the call with INVALID_REQUEST.
    static func unary<Request, Response>(
        _ method: ProtobufMethod<Request, Response>,
        _ body: @escaping @Sendable (Request, CallContext) async throws(ServiceError) -> Response
    ) -> (String, MethodHandler) {
        (method.path, .unary { bytes, context throws(ServiceError) in
            let request: Request
            do {
                request = try Request(serializedBytes: bytes)
            } catch {
                throw ServiceError(.invalidRequest, "the \(Request.protoMessageName) message does not decode: \(error)")
            }
            return try await body(request, context).serializedBytes()
        })
    }

    /// An immediate handler with a typed request; a request that does not decode
    /// ends the call with INVALID_REQUEST.
    static func immediate<Request, Response>(
        _ method: ProtobufMethod<Request, Response>,
        _ body: @escaping @Sendable (Request, ServerCall, CallContext) -> Void
    ) -> (String, MethodHandler) {
        (method.path, .immediate { bytes, call, context in
            let request: Request
            do {
                request = try Request(serializedBytes: bytes)
            } catch {
                call.end(ServiceError(.invalidRequest, "the \(Request.protoMessageName) message does not decode: \(error)").status)
                return
            }
            body(request, call, context)
        })
    }
}
