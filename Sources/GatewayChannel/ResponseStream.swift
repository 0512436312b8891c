import GatewayWire

/// The responses of a streaming call, decoded, as an `AsyncSequence`.
///
/// Ends when the server ends the call with OK; throws ``RPCError`` for any other end
/// (server status, deadline, cancel, lost connection). Iterate it once.
public struct ResponseStream<Response: ProtobufMessage>: AsyncSequence, Sendable {
    public typealias Element = Response

    let channel: ClientChannel
    let call: ClientChannel.StartedCall
    let path: String

    /// Cancels the call (CANCEL to the server); iteration then throws `CANCELLED`.
    public func cancel() { channel.cancel(call) }

    public func makeAsyncIterator() -> Iterator {
        Iterator(channel: channel, call: call, path: path, base: call.inbound.makeAsyncIterator())
    }

    public struct Iterator: AsyncIteratorProtocol {
        let channel: ClientChannel
        let call: ClientChannel.StartedCall
        let path: String
        var base: AsyncThrowingStream<[UInt8], any Error>.Iterator

        public mutating func next() async throws -> Response? {
            guard let bytes = try await base.next() else {
                if Task.isCancelled { throw RPCError.cancelled() }
                return nil
            }
            channel.consumed(call, byteCount: bytes.count)
            do {
                return try Response(serializedBytes: bytes)
            } catch {
                channel.cancel(call, error: RPCError.malformedResponse(path, error))
                throw RPCError.malformedResponse(path, error)
            }
        }
    }
}

/// A bidirectional-streaming call.
public struct BidirectionalCall<Request: ProtobufMessage, Response: ProtobufMessage>: Sendable {
    let channel: ClientChannel
    let call: ClientChannel.StartedCall
    let path: String

    /// The server's messages.
    public var responses: ResponseStream<Response> { ResponseStream(channel: channel, call: call, path: path) }

    /// Sends one request; returns once it is written or fits the send queue, waiting while
    /// the server's flow-control window is exhausted.
    ///
    /// - Throws: ``RPCError`` when the call already ended (with its status).
    public func send(_ message: Request) async throws {
        let handler = channel.handler
        let handle = call.handle
        let bytes = message.serializedBytes()
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            handler.executor.execute { handler.send(handle: handle, message: bytes, completion: continuation) }
        }
    }

    /// Sends no more requests (HALF_CLOSE); responses keep coming until the server ends the call.
    public func finish() {
        let handler = channel.handler
        let handle = call.handle
        handler.executor.execute { handler.halfClose(handle: handle) }
    }

    /// Abandons the call (CANCEL to the server).
    public func cancel() { channel.cancel(call) }
}
