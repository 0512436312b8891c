import GatewayWire
import Synchronization

/// The executor's record of one call a caller started: its stream id once started.
///
/// `@unchecked Sendable`: created on a caller's task, then read and written only on the
/// channel's executor (every access goes through `executor.execute`).
final class CallHandle: @unchecked Sendable {
    /// The stream id, once the call started.
    var streamID: UInt32?
    /// Cancelled before it started (the cancel task overtook nothing: tasks run in order).
    var cancelled = false
    /// How the call ended, once it has (nil while open, `.none` for OK).
    var outcome: RPCError??

    init() {}
}

/// Where a call's received messages (serialized) and its end go: the caller's stream, or for a
/// unary call the one continuation its caller awaits (no stream, no iterator, no task
/// suspension per message).
enum CallInbound: Sendable {
    case stream(AsyncThrowingStream<[UInt8], any Error>.Continuation)
    case unary(UnaryResponse)

    func yield(_ message: [UInt8]) {
        switch self {
        case .stream(let continuation): continuation.yield(message)
        case .unary(let response): response.received(message)
        }
    }

    /// The call ended: OK without `error`.
    func finish(throwing error: (any Error)? = nil) {
        switch self {
        case .stream(let continuation): continuation.finish(throwing: error)
        case .unary(let response): response.ended(error)
        }
    }
}

/// A unary call's response as the executor collects it: the first message received (later ones
/// are dropped, as a unary caller reads one), handed to the caller once the call ends. The call
/// may end before its caller waits (``wait()`` then returns at once) or after.
final class UnaryResponse: Sendable {
    private struct State {
        var message: [UInt8]?
        var outcome: Result<[UInt8]?, any Error>?
        var waiter: CheckedContinuation<[UInt8]?, any Error>?
    }

    private let state = Mutex(State())

    init() {}

    func received(_ bytes: [UInt8]) {
        state.withLock { state in
            if state.message == nil, state.outcome == nil { state.message = bytes }
        }
    }

    /// The call ended (OK without `error`): the caller gets the message, or the error. Once.
    func ended(_ error: (any Error)?) {
        let (waiter, outcome) = state.withLock { state -> (CheckedContinuation<[UInt8]?, any Error>?, Result<[UInt8]?, any Error>?) in
            guard state.outcome == nil else { return (nil, nil) }
            let outcome: Result<[UInt8]?, any Error> = error.map { .failure($0) } ?? .success(state.message)
            state.outcome = outcome
            defer { state.waiter = nil }
            return (state.waiter, outcome)
        }
        if let waiter, let outcome { waiter.resume(with: outcome) }
    }

    /// The first message (nil if the call ended OK without one), or the call's error.
    func wait() async throws -> [UInt8]? {
        try await withCheckedThrowingContinuation { (waiter: CheckedContinuation<[UInt8]?, any Error>) in
            let outcome = state.withLock { state -> Result<[UInt8]?, any Error>? in
                if let outcome = state.outcome { return outcome }
                state.waiter = waiter
                return nil
            }
            if let outcome { waiter.resume(with: outcome) }
        }
    }
}

/// One open call as the executor sees it.
struct CallEntry {
    /// Where received messages (serialized) and the end status go.
    var inbound: CallInbound
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
    var inbound: CallInbound
}
