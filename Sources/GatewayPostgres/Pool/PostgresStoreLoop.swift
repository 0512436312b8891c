import CGatewayLinux
import Foundation
import GatewayCore
import GatewayEventLoop
import Synchronization

/// Work a caller hands to the store thread.
enum StoreCommand: Sendable {
    /// Run a statement on any pool connection, or on the pinned one.
    case statement(Statement, pinnedTo: ConnectionID?)
    /// Run a statement on the reserved connection (never behind pool statements).
    case reservedStatement(Statement)
    /// Pin a connection for a transaction.
    case acquire(@Sendable (Result<ConnectionID, StoreError>) -> Void)
    /// Unpin a connection; `discard` closes it instead of returning it to the pool.
    case release(ConnectionID, discard: Bool)
    /// Subscribe to a channel; `registered` runs once the server confirmed the LISTEN.
    case listen(
        channel: String,
        subscriber: Int,
        stream: AsyncStream<PostgresNotification>.Continuation,
        registered: @Sendable (Result<Void, StoreError>) -> Void
    )
    /// End a subscription (its stream was dropped or cancelled).
    case unlisten(subscriber: Int)

    /// Completes the command with `error` without running it.
    func fail(_ error: StoreError) {
        switch self {
        case .statement(let statement, _), .reservedStatement(let statement): statement.completion(.failure(error))
        case .acquire(let completion): completion(.failure(error))
        case .release, .unlisten: break
        case .listen(_, _, let stream, let registered):
            registered(.failure(error))
            stream.finish()
        }
    }
}

/// The store thread: an event loop (``GatewayEventLoop/EventLoop``, a group of one, thread
/// `store-0`) that drives every libpq connection of a ``PostgresClient`` without ever blocking
/// a caller's thread.
///
/// Why this design: libpq is a C library with blocking defaults; its
/// non-blocking API (`PQconnectPoll`, `PQsendQueryParams`, `PQconsumeInput`,
/// `PQisBusy`, `PQgetResult`) is driven by socket readiness. One dedicated
/// loop watching all the pool's sockets does that for every caller. A caller
/// runs its ``StoreCommand`` itself when the engine is free (a non-blocking
/// write to the socket: no thread hop on the way out); otherwise it appends
/// the command to a `Mutex`-protected inbox and, only when the thread is not
/// already due to look, hands the loop a task. Results come back through the
/// completion closures, which resume the callers' continuations. Pipeline
/// mode lets many statements share one connection's round trips, so a small
/// pool serves many concurrent callers. Which connection runs what is decided
/// by ``PoolStateMachine`` (pure); this type only carries its actions out.
/// Deadlines (waiting work, the listener's retry, the close) are one loop
/// timer, armed for the earliest.
///
/// `@unchecked Sendable`: `inbox` is guarded by its `Mutex`; every other
/// mutable property (and every ``PostgresConnection``) is touched only while
/// holding `engine`, by the store thread or by a caller on the fast path of
/// ``submit(_:)``. Completions run with `engine` held: they only resume a
/// continuation (which just enqueues the caller's task) or touch engine
/// state. Lock order: `engine`, then `inbox`. Sockets are registered with the
/// loop on the store thread only; a caller may change a registered socket's
/// interest or remove it (one `epoll_ctl` each, see `EventLoop+Registration.swift`).
final class PostgresStoreLoop: @unchecked Sendable {
    struct Inbox {
        var commands: [StoreCommand] = []
        /// A task that takes the commands was handed to the loop and has not run yet.
        var wakePending = false
        var closing = false
        var finished = false
        var shutdownWaiters: [CheckedContinuation<Void, Never>] = []
    }

    let configuration: PostgresConfiguration
    let logger: Logger
    private let inbox = Mutex(Inbox())
    /// Held by whichever thread runs the engine: the store thread on each
    /// readiness, task or timer, or a caller on the fast path of ``submit(_:)``.
    /// Guards every property under "engine state".
    private let engine = Mutex(())
    /// The store thread's loop, alone in its group.
    private let group: EventLoopGroup
    let eventLoop: EventLoop

    // MARK: engine state (guarded by `engine`)
    var connections: [Int: PostgresConnection] = [:]
    var pool: PoolStateMachine<Statement, AcquireCompletion>
    var closeDeadline: ContinuousClock.Instant?
    /// The store thread (not a caller on the fast path) is running the engine.
    var runningOnStoreThread = false
    /// A caller found work only the store thread does (opening connections, registering sockets).
    var needsStoreThread = false
    /// Connections whose socket a caller could not (re-)register: the store thread does it.
    var interestPending: [ConnectionID] = []
    var listener = ListenerState()
    /// The loop timer for the earliest deadline, and the deadline it was armed for.
    var deadlineTimer: (task: ScheduledTask, at: ContinuousClock.Instant)?

    init(configuration: PostgresConfiguration, logger: Logger) throws(StoreError) {
        try configuration.validate()
        self.configuration = configuration
        self.logger = logger
        pool = PoolStateMachine(maximumConnections: configuration.maximumConnections, pipelineDepth: configuration.pipelineDepth)
        do throws(EventLoopError) {
            group = try EventLoopGroup(loopCount: 1, readBufferSize: 0, threadNamePrefix: "store", logComponent: logger.component)
        } catch {
            throw StoreError(.connectionFailed, "cannot start the store thread's event loop; raise the open-files limit", underlying: error.description)
        }
        eventLoop = group.loops[0]
    }

    /// The pool's counts, read under the engine lock (held only for one non-blocking step).
    func poolStatistics() -> PoolStatistics {
        engine.withLock { _ in pool.statistics }
    }

    /// Hands a command to the store thread, or fails it when the client is shut down.
    ///
    /// Fast path: when no other thread is running the engine, the caller runs
    /// the command itself (for a statement: picks a connection and writes it
    /// to the socket without blocking), which saves waking the store thread
    /// for every statement; only the result then comes back through the store
    /// thread's loop. Otherwise the command waits in the inbox.
    func submit(_ command: StoreCommand) {
        let ranDirectly = engine.withLockIfAvailable { _ -> Bool in
            let pending: [StoreCommand]? = inbox.withLock { inbox in
                guard !inbox.closing, !inbox.finished else { return nil }
                let commands = inbox.commands
                inbox.commands.removeAll(keepingCapacity: true)
                return commands
            }
            guard let pending else { return false }
            for earlier in pending { handle(earlier) }
            handle(command)
            dispatch()
            if needsStoreThread {
                // The store thread must open connections or register sockets.
                needsStoreThread = false
                eventLoop.execute { [self] in runEngine {} }
            } else {
                armDeadlineTimer()
            }
            return true
        }
        if ranDirectly == true { return }
        let wake: Bool? = inbox.withLock { inbox in
            guard !inbox.closing else { return nil }
            inbox.commands.append(command)
            if inbox.wakePending { return false }
            inbox.wakePending = true
            return true
        }
        switch wake {
        case nil: command.fail(StoreError(.closed, "the database client was shut down; no more statements can run"))
        case true?: wakeForCommands()
        case false?: break
        }
    }

    /// Stops taking commands, lets statements in flight finish (5 s at most),
    /// closes every connection and returns when the thread has ended.
    func shutdown() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let alreadyFinished = inbox.withLock { inbox -> Bool in
                if inbox.finished { return true }
                inbox.closing = true
                inbox.shutdownWaiters.append(continuation)
                return false
            }
            if alreadyFinished {
                continuation.resume()
            } else {
                wakeForCommands()
            }
        }
        await group.shutdown()
    }

    /// Asks the thread to stop without waiting (from the client's deinit).
    func requestShutdown() {
        inbox.withLock { $0.closing = true }
        wakeForCommands()
    }

    // MARK: the engine on the store thread

    /// Has the store thread take the inbox's commands.
    private func wakeForCommands() {
        eventLoop.execute { [self] in runEngine { takeCommands() } }
    }

    /// Runs the engine on the store thread: `body`, then what every wake-up ends with (expire
    /// waiting work, open what is needed, hand out work, finish a close, re-arm the timer).
    func runEngine(_ body: () -> Void) {
        engine.withLock { _ in
            runningOnStoreThread = true
            defer { runningOnStoreThread = false }
            body()
            if !interestPending.isEmpty {
                let pending = interestPending
                interestPending.removeAll()
                for id in pending { if let connection = connections[id.raw] { updateInterest(connection) } }
            }
            expireWaiting(now: .now)
            ensureListener()
            dispatch()
            if closeDeadline != nil, finishCloseIfDone() {
                deadlineTimer?.task.cancel()
                deadlineTimer = nil
                group.requestShutdown()
                return
            }
            armDeadlineTimer()
        }
    }

    /// Runs the commands waiting in the inbox. Called with `engine` held.
    private func takeCommands() {
        let (commands, closing) = inbox.withLock { inbox -> ([StoreCommand], Bool) in
            inbox.wakePending = false
            let commands = inbox.commands
            inbox.commands.removeAll(keepingCapacity: true)
            return (commands, inbox.closing)
        }
        for command in commands { handle(command) }
        if closing, closeDeadline == nil { beginClose() }
    }

    /// Arms the loop timer for the earliest deadline, unless one at or before it is armed
    /// already (a timer that fires early finds nothing due and re-arms). Engine state.
    private func armDeadlineTimer() {
        var earliest: ContinuousClock.Instant?
        for instant in [pool.earliestDeadline, listener.retryAt, closeDeadline] {
            guard let instant else { continue }
            if earliest == nil || instant < earliest! { earliest = instant }
        }
        guard let earliest else { return }
        if let armed = deadlineTimer, armed.at <= earliest { return }
        deadlineTimer?.task.cancel()
        let task = eventLoop.schedule(after: ContinuousClock.now.duration(to: earliest)) { [self] in
            runEngine { deadlineTimer = nil }
        }
        deadlineTimer = (task, earliest)
    }

    private func handle(_ command: StoreCommand) {
        switch command {
        case .statement(let statement, let pinned?):
            guard let connection = connections[pinned.raw], connection.state == .ready else {
                statement.completion(.failure(StoreError(
                    .connectionLost,
                    "the transaction's connection broke; the transaction was rolled back by the server, run it again"
                )))
                return
            }
            if !connection.send(statement) {
                connectionBroke(connection, input: connection.breakConnection(ConnectionInput()), pendingStatement: statement)
            } else {
                pool.sent(on: pinned)
                updateInterest(connection)
            }
        case .statement(let statement, nil):
            pool.enqueue(statement, deadline: .now + configuration.connectionWaitTimeout)
        case .reservedStatement(let statement):
            pool.enqueueReserved(statement, deadline: .now + configuration.connectionWaitTimeout)
        case .acquire(let completion):
            pool.enqueueAcquirer(completion, deadline: .now + configuration.connectionWaitTimeout)
        case .release(let id, let discard):
            let clean = !discard && (connections[id.raw]?.isIdleOutsideTransaction ?? false)
            perform(pool.release(id, clean: clean))
        case .listen(let channel, let subscriber, let stream, let registered):
            addSubscription(channel: channel, subscriber: subscriber, stream: stream, registered: registered)
        case .unlisten(let subscriber):
            removeSubscription(subscriber)
        }
    }

    // MARK: closing

    private func beginClose() {
        closeDeadline = .now + .seconds(5)
        perform(pool.close(error: StoreError(.closed, "the database client is shutting down; the statement did not run")))
        closeListener()
    }

    /// Tears everything down once nothing is in flight (or the deadline passed). True when done.
    private func finishCloseIfDone() -> Bool {
        let busy = connections.values.contains { $0.inflightCount > 0 }
        if busy, let deadline = closeDeadline, ContinuousClock.now < deadline { return false }
        for connection in Array(connections.values) {
            let input = connection.breakConnection(ConnectionInput(), reason: "the database client shut down before the statement finished")
            removeConnection(connection)
            deliver(input, from: connection)
        }
        let (commands, waiters) = inbox.withLock { inbox in
            inbox.finished = true
            let taken = (inbox.commands, inbox.shutdownWaiters)
            inbox.commands.removeAll()
            inbox.shutdownWaiters.removeAll()
            return taken
        }
        let error = StoreError(.closed, "the database client was shut down; no more statements can run")
        for command in commands { command.fail(error) }
        for waiter in waiters { waiter.resume() }
        return true
    }
}
