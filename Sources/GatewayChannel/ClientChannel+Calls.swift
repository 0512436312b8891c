import GatewayWire

extension ClientChannel {
    /// Calls a unary method: one request, one response.
    ///
    /// - Parameters:
    ///   - metadata: call metadata, e.g. `authorization: Bearer <secret key>`.
    ///   - timeout: the call's deadline; nil for none.
    /// - Throws: ``RPCError`` with the server's status, `DEADLINE_EXCEEDED`, `CANCELLED`
    ///   (the task was cancelled: CANCEL went to the server) or `UNAVAILABLE`.
    public func unary<Request, Response>(
        _ method: ProtobufMethod<Request, Response>,
        _ request: Request,
        metadata: [ReaderGatewayV1.MetadataEntry] = [],
        timeout: Duration? = nil
    ) async throws -> Response {
        let response = try await startUnary(path: method.path, metadata: metadata, timeout: timeout, request: request.serializedBytes())
        if Task.isCancelled, response == nil { throw RPCError.cancelled() }
        guard let response else {
            throw RPCError(.internal, "\(method.path) ended with OK but sent no response message")
        }
        do {
            return try Response(serializedBytes: response)
        } catch {
            throw RPCError.malformedResponse(method.path, error)
        }
    }

    /// Calls a server-streaming method: one request, a sequence of responses.
    ///
    /// The call starts at once. Iterate the result for the responses; the sequence ends
    /// when the server ends the call with OK and throws ``RPCError`` otherwise. Cancelling
    /// the iterating task (or dropping the sequence) cancels the call.
    public func serverStreaming<Request, Response>(
        _ method: ProtobufMethod<Request, Response>,
        _ request: Request,
        metadata: [ReaderGatewayV1.MetadataEntry] = [],
        timeout: Duration? = nil
    ) -> ResponseStream<Response> {
        let call = start(path: method.path, metadata: metadata, timeout: timeout, firstMessage: request.serializedBytes(), halfClose: true, autoConsume: false)
        return ResponseStream(channel: self, call: call, path: method.path)
    }

    /// Starts a bidirectional-streaming call: send requests with
    /// ``BidirectionalCall/send(_:)``, finish with ``BidirectionalCall/finish()``, read
    /// ``BidirectionalCall/responses``.
    public func bidirectional<Request, Response>(
        _ method: ProtobufMethod<Request, Response>,
        metadata: [ReaderGatewayV1.MetadataEntry] = [],
        timeout: Duration? = nil
    ) -> BidirectionalCall<Request, Response> {
        let call = start(path: method.path, metadata: metadata, timeout: timeout, firstMessage: nil, halfClose: false, autoConsume: false)
        return BidirectionalCall(channel: self, call: call, path: method.path)
    }

    /// A started call: its handle on the executor and its inbound messages.
    struct StartedCall: Sendable {
        let handle: CallHandle
        let inbound: AsyncThrowingStream<[UInt8], any Error>
    }

    func start(
        path: String,
        metadata: [ReaderGatewayV1.MetadataEntry],
        timeout: Duration?,
        firstMessage: [UInt8]?,
        halfClose: Bool,
        autoConsume: Bool
    ) -> StartedCall {
        let handle = CallHandle()
        let handler = self.handler
        let (inbound, continuation) = AsyncThrowingStream.makeStream(of: [UInt8].self)
        continuation.onTermination = { termination in
            guard case .cancelled = termination else { return }
            handler.executor.execute { handler.cancel(handle: handle, error: .cancelled()) }
        }
        handler.executor.execute {
            handler.startCall(
                handle: handle, path: path, metadata: metadata, timeout: timeout, firstMessage: firstMessage,
                halfClose: halfClose, autoConsume: autoConsume, inbound: .stream(continuation)
            )
        }
        return StartedCall(handle: handle, inbound: inbound)
    }

    /// Starts a unary call and waits for its end: the first response message (nil if the call
    /// ended OK without one), or the call's error. Cancelling the task cancels the call (CANCEL
    /// to the server) and it throws `CANCELLED`; a task cancelled already still starts the call
    /// first, as a stream's would (cleanup calls made from a cancelled task reach the gateway).
    func startUnary(path: String, metadata: [ReaderGatewayV1.MetadataEntry], timeout: Duration?, request: [UInt8]) async throws -> [UInt8]? {
        let handle = CallHandle()
        let handler = self.handler
        let response = UnaryResponse()
        handler.executor.execute {
            handler.startCall(
                handle: handle, path: path, metadata: metadata, timeout: timeout, firstMessage: request,
                halfClose: true, autoConsume: true, inbound: .unary(response)
            )
        }
        return try await withTaskCancellationHandler {
            try await response.wait()
        } onCancel: {
            // On the executor after the start, as every call's operations are.
            handler.executor.execute { handler.cancel(handle: handle, error: .cancelled()) }
        }
    }

    func cancel(_ call: StartedCall, error: RPCError = .cancelled()) {
        let handler = self.handler
        let handle = call.handle
        handler.executor.execute { handler.cancel(handle: handle, error: error) }
    }

    func consumed(_ call: StartedCall, byteCount: Int) {
        let handler = self.handler
        let handle = call.handle
        handler.executor.execute { handler.consumed(handle: handle, byteCount: byteCount) }
    }
}

/// Metadata helpers.
extension ReaderGatewayV1.MetadataEntry {
    /// A text metadata entry.
    public init(_ key: String, _ value: String) {
        self.init()
        self.key = key
        self.value = Array(value.utf8)
    }

    /// `authorization: Bearer <secret key>`, what the admin surface reads.
    public static func bearer(_ secret: String) -> Self { Self("authorization", "Bearer \(secret)") }
}
