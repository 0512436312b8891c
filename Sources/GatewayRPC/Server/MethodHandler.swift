import GatewayChannel
import GatewayWire

/// How a server serves one method path.
///
/// Handlers run in tasks, off the event loops; they answer through the
/// ``ServerCall`` they are given, which hops back to the connection's loop.
public enum MethodHandler: Sendable {
    /// One request, one response (or an error).
    case unary(@Sendable (_ request: [UInt8], _ context: CallContext) async throws(RPCError) -> [UInt8])
    /// One request, then messages until the handler ends the call.
    case serverStreaming(@Sendable (_ request: [UInt8], _ call: ServerCall, _ context: CallContext) async -> Void)
    /// Requests as they arrive (the stream ends at HALF_CLOSE, cancel or
    /// connection loss); the handler sends messages and ends the call.
    case bidirectional(@Sendable (_ requests: AsyncStream<[UInt8]>, _ call: ServerCall, _ context: CallContext) async -> Void)
    /// One request, handled on the connection's event loop when it arrives (no
    /// task): the handler must not block and answers through the call, from any thread.
    case immediate(@Sendable (_ request: [UInt8], _ call: ServerCall, _ context: CallContext) -> Void)
}
