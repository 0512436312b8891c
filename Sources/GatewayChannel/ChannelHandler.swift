import GatewayCore
import GatewayWire
import Synchronization

/// Drives one client-role ``FrameConnection`` over one ``ClientTransport`` connection (TLS on
/// Linux, Network.framework on Apple platforms, a pipe in memory).
///
/// ## Threads
/// `@unchecked Sendable`: the properties under "executor-confined" are read and written only on
/// ``executor`` (transport callbacks run there, and callers hop there with
/// `executor.execute`); ``shared`` is a `Mutex` read from any thread.
final class ChannelHandler: ClientTransportDelegate, @unchecked Sendable {
    let executor: any ChannelExecutor
    let logger: Logger

    // MARK: executor-confined
    var connection: (any ClientTransportConnection)?
    var frames: FrameConnection
    var calls: [UInt32: CallEntry] = [:]
    /// Calls waiting for a stream slot (the server's max concurrent streams was reached).
    var pending: [PendingCall] = []
    var timer: (any ChannelTimer)?
    var armedDeadline: WireTime?
    var closing = false
    var finished = false

    // MARK: any thread
    struct Shared: Sendable {
        var state: ChannelState = .connecting
        var connectContinuation: CheckedContinuation<Void, any Error>?
        var closeWaiters: [CheckedContinuation<RPCError, Never>] = []
        var lastPingRoundTrip: Duration?
        var info: ChannelConnectionInfo?
        var transportGone = false
    }
    let shared = Mutex(Shared())

    init(executor: any ChannelExecutor, configuration: ConnectionConfiguration, logger: Logger) {
        self.executor = executor
        self.logger = logger
        self.frames = FrameConnection(configuration: configuration, now: WireTime.now)
    }

    var state: ChannelState { shared.withLock { $0.state } }

    // MARK: transport callbacks (executor)

    func transportActive(_ connection: any ClientTransportConnection, info: ChannelConnectionInfo) {
        self.connection = connection
        afterOperation()
        let continuation = shared.withLock { shared in
            shared.state = .ready
            shared.info = info
            let taken = shared.connectContinuation
            shared.connectContinuation = nil
            return taken
        }
        continuation?.resume()
    }

    func transportReceived(_ bytes: UnsafeRawBufferPointer) {
        let events = frames.receive(bytes, now: WireTime.now)
        process(events)
        afterOperation()
    }

    /// The connection went quiet and the transport released its buffers: the frame
    /// connection's buffers kept between messages go too.
    func transportIdle() {
        frames.releaseIdleStorage()
    }

    func transportClosed(_ reason: ClientTransportCloseReason) {
        finished = true
        self.connection = nil
        timer?.cancel()
        timer = nil
        let error: RPCError
        switch reason {
        case .failed(let message, let cause):
            error = .unavailable(.connectionLost, message, cause: cause)
        case .closedLocally:
            error = .unavailable(.connectionLost, "the connection to the gateway ended: closed locally")
        case .closedByPeer(let detail):
            error = .unavailable(.connectionLost, "the connection to the gateway ended: \(detail)")
        }
        // The first reason wins: a GOAWAY or a local close already recorded why.
        shared.withLock { shared in
            if !shared.state.isClosed { shared.state = .closed(error) }
        }
        process(frames.connectionLost(reason: error.message))
        failAllCalls(error)
        let (connect, waiters, finalError) = shared.withLock { shared -> (CheckedContinuation<Void, any Error>?, [CheckedContinuation<RPCError, Never>], RPCError) in
            shared.transportGone = true
            var finalError = error
            if case .closed(let recorded) = shared.state { finalError = recorded }
            let connect = shared.connectContinuation
            shared.connectContinuation = nil
            let waiters = shared.closeWaiters
            shared.closeWaiters = []
            return (connect, waiters, finalError)
        }
        connect?.resume(throwing: finalError)
        for waiter in waiters { waiter.resume(returning: finalError) }
    }

    // MARK: operations (executor)

    /// Starts a call: CALL_START, then the first message and HALF_CLOSE when given.
    func startCall(
        handle: CallHandle,
        path: String,
        metadata: [ReaderGatewayV1.MetadataEntry],
        timeout: Duration?,
        firstMessage: [UInt8]?,
        halfClose: Bool,
        autoConsume: Bool,
        inbound: CallInbound
    ) {
        guard !handle.cancelled else {
            handle.outcome = .some(.cancelled())
            inbound.finish(throwing: RPCError.cancelled())
            return
        }
        guard connection != nil, !finished, !closing else {
            let error = closedError()
            handle.outcome = .some(error)
            inbound.finish(throwing: error)
            return
        }
        let now = WireTime.now
        if frames.state == .active && frames.openStreamCount >= frames.peerSettings.maxConcurrentStreams {
            pending.append(PendingCall(
                handle: handle, path: path, metadata: metadata, deadline: timeout.map { now.adding($0) },
                firstMessage: firstMessage, halfClose: halfClose, autoConsume: autoConsume, inbound: inbound
            ))
            return
        }
        var started: UInt32?
        do {
            let id = try frames.startCall(method: path, metadata: metadata, timeout: timeout, now: now)
            started = id
            handle.streamID = id
            calls[id] = CallEntry(inbound: inbound, autoConsume: autoConsume, writableWaiter: nil, handle: handle)
            if let firstMessage { try frames.send(serialized: firstMessage, on: id) }
            if halfClose { try frames.halfClose(id) }
        } catch {
            let rpcError = (error as? WireError).map(RPCError.from) ?? RPCError(.internal, "\(error)")
            if let id = started {
                calls[id] = nil
                process(frames.cancel(id, status: ReaderGatewayV1.Status(rpcError.reason, rpcError.message)))
            }
            handle.outcome = .some(rpcError)
            inbound.finish(throwing: rpcError)
        }
        afterOperation()
    }

    /// Sends one message on an open call; resumes `completion` once written or queued within
    /// the flow-control window, or later when the queue drains.
    func send(handle: CallHandle, message: [UInt8], completion: CheckedContinuation<Void, any Error>) {
        if handle.streamID == nil, let index = pending.firstIndex(where: { $0.handle === handle }) {
            // The call waits for a stream slot: its messages wait with it.
            pending[index].laterMessages.append(message)
            completion.resume()
            return
        }
        guard let id = handle.streamID, calls[id] != nil else {
            completion.resume(throwing: endedError(handle))
            return
        }
        do {
            let written = try frames.send(serialized: message, on: id)
            if written {
                completion.resume()
            } else {
                calls[id]?.writableWaiter = completion
            }
        } catch {
            completion.resume(throwing: (error as? WireError).map(RPCError.from) ?? RPCError(.internal, "\(error)"))
        }
        afterOperation()
    }

    /// The client sends no more messages on the call.
    func halfClose(handle: CallHandle) {
        if handle.streamID == nil, let index = pending.firstIndex(where: { $0.handle === handle }) {
            pending[index].halfClose = true
            return
        }
        guard let id = handle.streamID, calls[id] != nil else { return }
        try? frames.halfClose(id)
        afterOperation()
    }

    /// Abandons a call: CANCEL to the server, the caller sees `error`.
    func cancel(handle: CallHandle, error: RPCError) {
        guard let id = handle.streamID else {
            handle.cancelled = true
            if let index = pending.firstIndex(where: { $0.handle === handle }) {
                let waiting = pending.remove(at: index)
                handle.outcome = .some(error)
                waiting.inbound.finish(throwing: error)
            }
            return
        }
        guard let entry = calls.removeValue(forKey: id) else { return }
        handle.outcome = .some(error)
        entry.writableWaiter?.resume(throwing: error)
        entry.inbound.finish(throwing: error)
        process(frames.cancel(id, status: ReaderGatewayV1.Status(.cancelledByPeer, error.message)))
        afterOperation()
    }

    /// The caller processed a message of `byteCount` bytes: return the flow-control credit.
    func consumed(handle: CallHandle, byteCount: Int) {
        guard let id = handle.streamID else { return }
        frames.messageConsumed(id, byteCount: byteCount)
        afterOperation()
    }

    /// Sends a PING now (its round trip is reported through `lastPingRoundTrip`).
    func ping() {
        guard connection != nil, !finished else { return }
        frames.sendPing(now: WireTime.now)
        afterOperation()
    }

    /// Sends GOAWAY: no new calls; the connection closes when the last call ends.
    func shutdownGracefully() {
        guard !finished else { return }
        let error = RPCError.unavailable(.goingAway, "the channel was shut down by its owner; open a new one")
        shared.withLock { shared in
            if shared.state == .ready { shared.state = .draining(error) }
        }
        process(frames.initiateGracefulShutdown(reason: "the client is shutting down"))
        afterOperation()
    }

    /// Closes now: every open call fails with `error`.
    func close(error: RPCError) {
        guard !finished else { return }
        shared.withLock { shared in
            if !shared.state.isClosed { shared.state = .closed(error) }
        }
        failAllCalls(error)
        closing = true
        afterOperation()
    }
}
