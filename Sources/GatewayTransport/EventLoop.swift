import CGatewayLinux
import Dispatch
import Foundation
import GatewayCore
import Synchronization

/// Something registered with an event loop's epoll set.
protocol EventLoopSelectable: AnyObject {
    /// Called on the loop thread with the epoll event bits for this descriptor.
    func handleEvents(_ events: UInt32)
}

/// One thread running an epoll loop: sockets, timers and tasks handed over from other threads.
///
/// ## Readiness model: edge-triggered
/// Connections are registered once for `EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET` and never
/// modified. Edge-triggered fits TLS on a socket: OpenSSL reports `WANT_READ` / `WANT_WRITE` only
/// after the socket itself returned `EAGAIN`, which is exactly the moment an edge is guaranteed to
/// follow, and a write-interest flip (`EPOLL_CTL_MOD`) per full socket buffer, as level-triggered
/// would need, is saved. The one obligation edge-triggering brings — a connection that stops
/// reading before `EAGAIN` would never hear of that data again — is met by the read budget: a
/// connection that used up its budget for a tick is put on the ``continueReading`` list and the
/// loop polls with a zero timeout until that list is empty. A connection may also stop as soon as
/// OpenSSL's last `read(2)` came back short (nothing was left in the socket then, so whatever
/// arrives later raises a new edge; see `TLSConnection.readAvailable(mayStopAtShortRead:)`).
/// Listening sockets stay level-triggered so an unaccepted backlog keeps reporting itself.
///
/// ## Threads
/// `@unchecked Sendable`: ``pendingTasks`` is guarded by its `Mutex`, ``loopThread`` is atomic,
/// and every other stored property is touched only on the loop's own thread (the thread that runs
/// ``run()``). Methods that are not marked as callable from any thread check this in debug builds.
public final class EventLoop: @unchecked Sendable {
    /// The position of this loop in its group (0-based); also its thread name suffix.
    public let index: Int
    /// The loop thread's name: the group's prefix, a dash, ``index``.
    public let threadName: String
    let epollFD: Int32
    private let wakeFD: Int32
    private let pendingTasks = Mutex<[@Sendable () -> Void]>([])
    /// Set when the loop's own thread queued a task without writing the eventfd; the next
    /// poll must then not block. Loop thread only.
    private var tasksQueuedOnLoop = false
    private let loopThread = Atomic<UInt>(0)
    private let stopRequested = Atomic<Bool>(false)
    let exited = DispatchSemaphore(value: 0)
    let logger: Logger

    // Loop-thread state.
    private var timers = TimerHeap()
    private var selectables: [EventLoopSelectable?] = []
    private var tokens: [UInt32] = []
    private var nextToken: UInt32 = 1
    /// Connections that ran out of read budget (or resumed after backpressure) and read again next tick.
    var continueReading: [TLSConnection] = []
    /// Connections with bytes queued by `write` during this tick, flushed before the loop sleeps.
    var flushList: [TLSConnection] = []
    /// Connections whose OpenSSL buffers may be held (see `TLSConnection+Buffers.swift`).
    var buffersHeld: [TLSConnection] = []
    /// Whether the buffer sweep is scheduled.
    var bufferSweepArmed = false
    /// Reused for every TLS read on this loop: no allocation per read.
    let readBuffer: UnsafeMutableRawBufferPointer
    /// The monotonic time at the start of the current tick (cheap "now" for activity stamps).
    private(set) var now: UInt64 = rg_monotonic_nanoseconds()
    /// Server connections closed since the allocator last gave memory back (`EventLoop+Memory.swift`).
    var closedSinceTrim = 0
    /// Whether a trim is scheduled.
    var trimScheduled = false

    private static let wakeData: UInt64 = UInt64.max

    init(index: Int, readBufferSize: Int, threadNamePrefix: String = "rg-loop") throws {
        self.index = index
        self.threadName = "\(threadNamePrefix)-\(index)"
        self.logger = Logger(component: "transport").with("loop", index)
        epollFD = rg_epoll_create()
        guard epollFD >= 0 else {
            throw TransportError(.socket, "could not create an epoll instance", cause: OpenSSLErrors.errnoText(rg_errno()))
        }
        wakeFD = rg_eventfd(0)
        guard wakeFD >= 0 else {
            close(epollFD)
            throw TransportError(.socket, "could not create an eventfd", cause: OpenSSLErrors.errnoText(rg_errno()))
        }
        _ = rg_epoll_ctl(epollFD, RG_EPOLL_CTL_ADD, wakeFD, RG_EPOLLIN, Self.wakeData)
        readBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: readBufferSize, alignment: 16)
    }

    deinit {
        readBuffer.deallocate()
        close(wakeFD)
        close(epollFD)
    }

    /// Whether the caller runs on this loop's thread. Callable from any thread.
    public var inEventLoop: Bool { loopThread.load(ordering: .relaxed) == UInt(bitPattern: Int(bitPattern: UInt(pthread_self()))) }

    /// Runs `task` on this loop's thread, soon. Callable from any thread.
    public func execute(_ task: @escaping @Sendable () -> Void) {
        let wasEmpty = pendingTasks.withLock { tasks in
            tasks.append(task)
            return tasks.count == 1
        }
        if inEventLoop {
            // On the loop's own thread no wake-up is needed: the loop runs its pending tasks
            // later in this iteration, or polls without blocking first (``pollTimeoutMilliseconds``).
            tasksQueuedOnLoop = true
        } else if wasEmpty {
            _ = rg_eventfd_write(wakeFD, 1)
        }
    }

    /// Runs `task` on this loop's thread after `delay`. Callable from any thread.
    @discardableResult
    public func schedule(after delay: Duration, _ task: @escaping @Sendable () -> Void) -> ScheduledTask {
        let scheduled = ScheduledTask(task)
        let deadline = rg_monotonic_nanoseconds() &+ delay.nanoseconds
        if inEventLoop {
            timers.push(deadline: deadline, .task(scheduled))
        } else {
            execute { [self] in self.timers.push(deadline: deadline, .task(scheduled)) }
        }
        return scheduled
    }

    /// Arms a deadline for the deadline target registered for `fd` (a connection). Loop thread
    /// only. The entry is dropped if `fd` is deregistered before it fires.
    func armDeadline(_ deadline: UInt64, forRegistered fd: Int32) {
        assert(inEventLoop)
        let slot = Int(fd)
        guard slot < tokens.count, tokens[slot] != 0 else { return }
        timers.push(deadline: deadline, .target(DeadlineTargetSlot(slot: fd, token: tokens[slot])))
    }

    // MARK: registration (loop thread only)

    /// Adds `fd` to the epoll set; returns false (errno set) if epoll refused it.
    func register(fd: Int32, events: UInt32, _ selectable: EventLoopSelectable) -> Bool {
        assert(inEventLoop)
        let slot = Int(fd)
        if slot >= selectables.count {
            let newCount = max(slot + 1, selectables.count * 2, 64)
            selectables.append(contentsOf: repeatElement(nil, count: newCount - selectables.count))
            tokens.append(contentsOf: repeatElement(0, count: newCount - tokens.count))
        }
        nextToken &+= 1
        if nextToken == 0 { nextToken = 1 }
        let data = UInt64(nextToken) << 32 | UInt64(UInt32(bitPattern: fd))
        guard rg_epoll_ctl(epollFD, RG_EPOLL_CTL_ADD, fd, events, data) == 0 else { return false }
        selectables[slot] = selectable
        tokens[slot] = nextToken
        return true
    }

    /// Changes the interest set of a registered descriptor.
    func modify(fd: Int32, events: UInt32) {
        assert(inEventLoop)
        let slot = Int(fd)
        let data = UInt64(tokens[slot]) << 32 | UInt64(UInt32(bitPattern: fd))
        _ = rg_epoll_ctl(epollFD, RG_EPOLL_CTL_MOD, fd, events, data)
    }

    /// Forgets `fd` (call before closing it; closing removes it from epoll).
    func deregister(fd: Int32) {
        assert(inEventLoop)
        let slot = Int(fd)
        guard slot < selectables.count else { return }
        _ = rg_epoll_ctl(epollFD, RG_EPOLL_CTL_DEL, fd, 0, 0)
        selectables[slot] = nil
        tokens[slot] = 0
    }

    /// Every registered object, for shutdown sweeps.
    func registeredObjects() -> [EventLoopSelectable] {
        selectables.compactMap { $0 }
    }

    // MARK: the loop

    /// Asks the loop to finish after the current tick. Callable from any thread.
    func requestStop() {
        stopRequested.store(true, ordering: .relaxed)
        _ = rg_eventfd_write(wakeFD, 1)
    }

    /// Runs the loop on the calling thread until ``requestStop()``.
    func run() {
        loopThread.store(UInt(bitPattern: Int(bitPattern: UInt(pthread_self()))), ordering: .relaxed)
        rg_set_thread_name(threadName)
        let capacity = 256
        let events = UnsafeMutablePointer<rg_epoll_event>.allocate(capacity: capacity)
        defer {
            events.deallocate()
            exited.signal()
        }
        while !stopRequested.load(ordering: .relaxed) {
            let count = rg_epoll_wait(epollFD, events, Int32(capacity), pollTimeoutMilliseconds())
            now = rg_monotonic_nanoseconds()
            if count > 0 {
                for i in 0..<Int(count) {
                    dispatch(events[i])
                }
            }
            runContinueReading()
            runPendingTasks()
            runDueTimers()
            flushAll()
        }
        // Final sweep: run what was handed over so that no continuation is left waiting.
        runPendingTasks()
        flushAll()
    }

    private func pollTimeoutMilliseconds() -> Int32 {
        if tasksQueuedOnLoop || !continueReading.isEmpty || !flushList.isEmpty { return 0 }
        guard let earliest = timers.earliestDeadline else { return -1 }
        let current = rg_monotonic_nanoseconds()
        if earliest <= current { return 0 }
        let milliseconds = (earliest - current + 999_999) / 1_000_000
        return Int32(min(milliseconds, 3_600_000))
    }

    private func dispatch(_ event: rg_epoll_event) {
        if event.data == Self.wakeData {
            var value: UInt64 = 0
            _ = rg_eventfd_read(wakeFD, &value)
            return
        }
        let slot = Int(UInt32(truncatingIfNeeded: event.data))
        let token = UInt32(truncatingIfNeeded: event.data >> 32)
        guard slot < selectables.count, tokens[slot] == token, let selectable = selectables[slot] else { return }
        selectable.handleEvents(event.events)
    }

    private func runContinueReading() {
        guard !continueReading.isEmpty else { return }
        let batch = continueReading
        continueReading.removeAll(keepingCapacity: true)
        for connection in batch {
            connection.continueReadingScheduled = false
            connection.readAvailable()
        }
    }

    private func runPendingTasks() {
        tasksQueuedOnLoop = false
        let tasks = pendingTasks.withLock { tasks -> [@Sendable () -> Void] in
            let taken = tasks
            tasks.removeAll(keepingCapacity: true)
            return taken
        }
        for task in tasks { task() }
    }

    private func runDueTimers() {
        guard timers.count > 0 else { return }
        let current = rg_monotonic_nanoseconds()
        now = current
        while let entry = timers.popDue(now: current) {
            switch entry.action {
            case .task(let scheduled):
                if !scheduled.isCancelled { scheduled.task() }
            case .target(let reference):
                let slot = Int(reference.slot)
                guard slot < tokens.count, tokens[slot] == reference.token,
                      let target = selectables[slot] as? any EventLoopDeadlineTarget
                else { continue }
                target.deadlineReached(entry.deadline, now: current)
            }
        }
    }

    private func flushAll() {
        while !flushList.isEmpty {
            let batch = flushList
            flushList.removeAll(keepingCapacity: true)
            for connection in batch {
                connection.flushScheduled = false
                connection.flush()
            }
        }
    }
}

extension Duration {
    /// The duration in whole nanoseconds (negative durations count as zero).
    var nanoseconds: UInt64 {
        let (seconds, attoseconds) = components
        if seconds < 0 { return 0 }
        return UInt64(seconds) &* 1_000_000_000 &+ UInt64(max(0, attoseconds) / 1_000_000_000)
    }
}
