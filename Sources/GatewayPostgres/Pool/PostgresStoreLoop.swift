import CGatewayLinux
import Foundation
import GatewayCore
import Synchronization

/// Work a caller hands to the store thread.
enum StoreCommand: Sendable {
    /// Run a statement on any pool connection, or on the pinned one.
    case statement(Statement, pinnedTo: ConnectionID?)
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
        case .statement(let statement, _): statement.completion(.failure(error))
        case .acquire(let completion): completion(.failure(error))
        case .release, .unlisten: break
        case .listen(_, _, let stream, let registered):
            registered(.failure(error))
            stream.finish()
        }
    }
}

/// The store thread: one epoll loop that drives every libpq connection of a
/// ``PostgresClient`` without ever blocking a caller's thread.
///
/// Why this design: libpq is a C library with blocking defaults; its
/// non-blocking API (`PQconnectPoll`, `PQsendQueryParams`, `PQconsumeInput`,
/// `PQisBusy`, `PQgetResult`) is driven by socket readiness. One dedicated
/// thread waiting in `epoll_wait` over all the pool's sockets does that for
/// every caller. A caller runs its ``StoreCommand`` itself when the engine
/// is free (a non-blocking write to the socket: no thread hop on the way
/// out); otherwise it appends the command to a `Mutex`-protected inbox and,
/// only when the thread is not already due to look, writes to an eventfd.
/// Results come back through the completion closures, which resume the
/// callers' continuations. Pipeline mode lets many statements share one
/// connection's round trips, so a small pool serves many concurrent callers.
/// Which connection runs what is decided by ``PoolStateMachine`` (pure);
/// this type only carries its actions out.
///
/// `@unchecked Sendable`: `inbox` is guarded by its `Mutex`; every other
/// mutable property (and every ``PostgresConnection``) is touched only while
/// holding `engine`, by the store thread or by a caller on the fast path of
/// ``submit(_:)``. Completions run with `engine` held: they only resume a
/// continuation (which just enqueues the caller's task) or touch engine
/// state. Lock order: `engine`, then `inbox`. The descriptors are created in
/// `init` and closed in `deinit`, so they stay valid for as long as any
/// caller can still write to the eventfd.
final class PostgresStoreLoop: @unchecked Sendable {
    struct Inbox {
        var commands: [StoreCommand] = []
        /// The eventfd was written and the thread has not taken the commands yet.
        var wakePending = false
        var closing = false
        var finished = false
        var shutdownWaiters: [CheckedContinuation<Void, Never>] = []
    }

    let configuration: PostgresConfiguration
    let logger: Logger
    private let inbox = Mutex(Inbox())
    /// Held by whichever thread runs the engine: the store thread after each
    /// `epoll_wait`, or a caller on the fast path of ``submit(_:)``. Guards
    /// every property under "engine state".
    private let engine = Mutex(())
    private let epollFD: Int32
    private let wakeFD: Int32
    static let wakeToken: UInt64 = 0

    // MARK: engine state (guarded by `engine`)
    var connections: [Int: PostgresConnection] = [:]
    var pool: PoolStateMachine<Statement, AcquireCompletion>
    var closeDeadline: ContinuousClock.Instant?
    /// The store thread (not a caller on the fast path) is running the engine.
    var runningOnStoreThread = false
    /// A caller found work only the store thread does (opening connections).
    var needsStoreThread = false
    var listener = ListenerState()

    init(configuration: PostgresConfiguration, logger: Logger) throws(StoreError) {
        try configuration.validate()
        self.configuration = configuration
        self.logger = logger
        pool = PoolStateMachine(maximumConnections: configuration.maximumConnections, pipelineDepth: configuration.pipelineDepth)
        let epollFD = rg_epoll_create()
        let wakeFD = rg_eventfd(0)
        guard epollFD >= 0, wakeFD >= 0,
              rg_epoll_ctl(epollFD, RG_EPOLL_CTL_ADD, wakeFD, RG_EPOLLIN, Self.wakeToken) == 0
        else {
            let reason = String(cString: strerror(errno))
            if epollFD >= 0 { close(epollFD) }
            if wakeFD >= 0 { close(wakeFD) }
            throw StoreError(.connectionFailed, "cannot create the store thread's epoll and eventfd descriptors; raise the open-files limit", underlying: reason)
        }
        self.epollFD = epollFD
        self.wakeFD = wakeFD
    }

    deinit {
        close(epollFD)
        close(wakeFD)
    }

    /// Starts the store thread.
    func start() {
        let thread = Thread { [self] in run() }
        thread.name = "store"
        thread.start()
    }

    /// Hands a command to the store thread, or fails it when the client is shut down.
    ///
    /// Fast path: when no other thread is running the engine, the caller runs
    /// the command itself (for a statement: picks a connection and writes it
    /// to the socket without blocking), which saves waking the store thread
    /// for every statement; only the result then comes back through the store
    /// thread's epoll. Otherwise the command waits in the inbox.
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
            // The store thread must open connections, and time work left waiting.
            if needsStoreThread || pool.waitingRequests > 0 || pool.waitingAcquirers > 0 || listener.retryAt != nil {
                needsStoreThread = false
                _ = rg_eventfd_write(wakeFD, 1)
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
        case true?: _ = rg_eventfd_write(wakeFD, 1)
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
                _ = rg_eventfd_write(wakeFD, 1)
            }
        }
    }

    /// Asks the thread to stop without waiting (from the client's deinit).
    func requestShutdown() {
        inbox.withLock { $0.closing = true }
        _ = rg_eventfd_write(wakeFD, 1)
    }

    // MARK: the loop

    private func run() {
        var events = [rg_epoll_event](repeating: rg_epoll_event(), count: 64)
        var timeout = engine.withLock { _ in timeoutMilliseconds() }
        while true {
            let count = rg_epoll_wait(epollFD, &events, Int32(events.count), timeout)
            if count < 0 {
                if errno == EINTR { continue }
                logger.critical("epoll_wait failed; the store thread stops", ["error": String(cString: strerror(errno))])
                break
            }
            let done = engine.withLock { _ -> Bool in
                runningOnStoreThread = true
                defer { runningOnStoreThread = false }
                for index in 0..<Int(count) {
                    let event = events[index]
                    if event.data == Self.wakeToken {
                        var value: UInt64 = 0
                        _ = rg_eventfd_read(wakeFD, &value)
                        takeCommands()
                    } else {
                        handleEvent(connectionID: Int(event.data), events: event.events)
                    }
                }
                expireWaiting(now: .now)
                ensureListener()
                dispatch()
                if closeDeadline != nil, finishCloseIfDone() { return true }
                timeout = timeoutMilliseconds()
                return false
            }
            if done { break }
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

    private func timeoutMilliseconds() -> Int32 {
        var earliest: ContinuousClock.Instant?
        func consider(_ instant: ContinuousClock.Instant?) {
            guard let instant else { return }
            if earliest == nil || instant < earliest! { earliest = instant }
        }
        consider(pool.earliestDeadline)
        consider(listener.retryAt)
        consider(closeDeadline)
        guard let earliest else { return -1 }
        let remaining = ContinuousClock.now.duration(to: earliest)
        if remaining <= .zero { return 0 }
        let (seconds, attoseconds) = remaining.components
        let millis = seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1
        return Int32(clamping: millis)
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

    private func handleEvent(connectionID: Int, events: UInt32) {
        guard let connection = connections[connectionID] else { return }
        switch connection.state {
        case .connecting:
            advanceConnect(connection)
        case .ready:
            if events & RG_EPOLLOUT != 0, !connection.flush() {
                connectionBroke(connection, input: connection.breakConnection(ConnectionInput()))
                return
            }
            if events & (RG_EPOLLIN | RG_EPOLLERR | RG_EPOLLHUP) != 0 {
                let input = connection.readInput()
                if input.failure != nil {
                    connectionBroke(connection, input: input)
                    return
                }
                deliver(input, from: connection)
            }
            updateInterest(connection)
        case .closed:
            removeConnection(connection)
        }
    }

    /// Runs completions and hands notifications to subscribers.
    func deliver(_ input: ConnectionInput, from connection: PostgresConnection) {
        if !input.finished.isEmpty { pool.finished(input.finished.count, on: connection.id) }
        for (completion, result) in input.finished { completion(result) }
        if !input.notifications.isEmpty { deliverNotifications(input.notifications) }
    }

    /// Registers (or re-registers) the connection's socket for what it waits on.
    func updateInterest(_ connection: PostgresConnection) {
        let socket = connection.socket
        let wanted: UInt32
        switch connection.state {
        case .connecting: wanted = connection.connectWantsWrite ? RG_EPOLLOUT : RG_EPOLLIN
        case .ready: wanted = RG_EPOLLIN | (connection.wantsWrite ? RG_EPOLLOUT : 0)
        case .closed: return
        }
        guard socket >= 0 else { return }
        let token = UInt64(connection.id.raw)
        if socket != connection.registeredSocket {
            if connection.registeredSocket >= 0 {
                _ = rg_epoll_ctl(epollFD, RG_EPOLL_CTL_DEL, connection.registeredSocket, 0, token)
            }
            if rg_epoll_ctl(epollFD, RG_EPOLL_CTL_ADD, socket, wanted, token) != 0 {
                _ = rg_epoll_ctl(epollFD, RG_EPOLL_CTL_MOD, socket, wanted, token)
            }
        } else if wanted != connection.registeredEvents {
            if rg_epoll_ctl(epollFD, RG_EPOLL_CTL_MOD, socket, wanted, token) != 0 {
                _ = rg_epoll_ctl(epollFD, RG_EPOLL_CTL_ADD, socket, wanted, token)
            }
        } else {
            return
        }
        connection.registeredSocket = socket
        connection.registeredEvents = wanted
    }

    /// Forgets a connection and closes it; statements still in flight on it fail.
    func removeConnection(_ connection: PostgresConnection) {
        unregister(connection)
        connections[connection.id.raw] = nil
        if connection.role == .pool { pool.connectionClosed(connection.id) }
        if connection.inflightCount > 0 {
            deliver(connection.breakConnection(ConnectionInput(), reason: "the connection was closed before the statement finished; run it again"), from: connection)
        } else {
            connection.close()
        }
    }

    /// Removes the connection's socket from epoll.
    func unregister(_ connection: PostgresConnection) {
        if connection.registeredSocket >= 0 {
            _ = rg_epoll_ctl(epollFD, RG_EPOLL_CTL_DEL, connection.registeredSocket, 0, 0)
            connection.registeredSocket = -1
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
