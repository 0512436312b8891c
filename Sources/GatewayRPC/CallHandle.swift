import GatewayWire

/// The loop's record of one call a caller started: its stream id once started.
///
/// `@unchecked Sendable`: created on a caller's task, then read and written only on the
/// channel's event loop thread (every access goes through `loop.execute`).
final class CallHandle: @unchecked Sendable {
    /// The stream id, once the call started.
    var streamID: UInt32?
    /// Cancelled before it started (the cancel task overtook nothing: tasks run in order).
    var cancelled = false
    /// How the call ended, once it has (nil while open, `.none` for OK).
    var outcome: RPCError??

    init() {}
}

/// One open call as the loop sees it.
struct CallEntry {
    /// Where received messages (serialized) and the end status go.
    var inbound: AsyncThrowingStream<[UInt8], any Error>.Continuation
    /// Return flow-control credit as soon as a message arrives (unary calls, whose single
    /// response is consumed at once) instead of when the caller takes it.
    var autoConsume: Bool
    /// A sender waiting for the stream's send queue to drain.
    var writableWaiter: CheckedContinuation<Void, any Error>?
    /// The caller's handle.
    var handle: CallHandle
}

/// A call waiting for a stream slot.
struct PendingCall {
    var handle: CallHandle
    var path: String
    var metadata: [ReaderGatewayV1.MetadataEntry]
    var deadline: WireTime?
    var firstMessage: [UInt8]?
    /// Messages sent (bidirectional calls) while the call waited.
    var laterMessages: [[UInt8]] = []
    var halfClose: Bool
    var autoConsume: Bool
    var inbound: AsyncThrowingStream<[UInt8], any Error>.Continuation
}
