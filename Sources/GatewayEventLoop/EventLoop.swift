import CGatewayLinux
import Dispatch
import Foundation
import GatewayCore
import Synchronization

/// One thread running an epoll loop: descriptors registered with a handler, timers, and tasks
/// handed over from other threads.
///
/// The one loop of the process's I/O: the TLS transport's loops, the ops endpoint's thread and
/// the PostgreSQL store thread are each an `EventLoop` (in groups of their own), so readiness,
/// timers and cross-thread wake-ups are written once.
///
/// ## A tick
/// `epoll_wait` (blocking until the earliest timer, or not at all when work is left over), then:
/// the handlers of ready descriptors, the tick hooks' ``EventLoopTickHook/afterEvents()``, the
/// tasks handed over with ``execute(_:)``, the timers that are due, and last the tick hooks'
/// ``EventLoopTickHook/beforeSleep()`` (the transport flushes its batched writes there).
///
/// ## Readiness
/// A handler (``EventLoopSelectable``) is registered for one descriptor with the epoll bits it
/// wants: level- or edge-triggered is the registrant's choice (`RG_EPOLLET`). See
/// `EventLoop+Registration.swift`.
///
/// ## Threads
/// `@unchecked Sendable`: ``pendingTasks`` is guarded by its `Mutex`, ``loopThread`` and
/// ``stopRequested`` are atomic, and every other stored property is touched only on the loop's
/// own thread (the thread that runs ``run()``). Methods that are not marked as callable from any
/// thread check this in debug builds.
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
    /// The loop's logger (component `event-loop`, field `loop`).
    public let logger: Logger

    // Loop-thread state.
    var timers = TimerHeap()
    var selectables: [EventLoopSelectable?] = []
    var tokens: [UInt32] = []
    var nextToken: UInt32 = 1
    var tickHooks: [any EventLoopTickHook] = []
    var attachments: [ObjectIdentifier: AnyObject] = [:]
    /// A buffer reused for every read on this loop (no allocation per read). Loop thread only.
    public let readBuffer: UnsafeMutableRawBufferPointer
    /// The monotonic time at the start of the current tick (a cheap "now" for activity stamps).
    /// Loop thread only.
    public private(set) var now: UInt64 = rg_monotonic_nanoseconds()

    private static let wakeData: UInt64 = UInt64.max

    init(index: Int, readBufferSize: Int, threadNamePrefix: String, logComponent: String) throws(EventLoopError) {
        self.index = index
        self.threadName = "\(threadNamePrefix)-\(index)"
        self.logger = Logger(component: logComponent).with("loop", index)
        epollFD = rg_epoll_create()
        guard epollFD >= 0 else {
            throw EventLoopError(.resources, "could not create an epoll instance; raise the open-files limit", cause: EventLoopError.errnoText())
        }
        wakeFD = rg_eventfd(0)
        guard wakeFD >= 0 else {
            let cause = EventLoopError.errnoText()
            close(epollFD)
            throw EventLoopError(.resources, "could not create an eventfd; raise the open-files limit", cause: cause)
        }
        _ = rg_epoll_ctl(epollFD, RG_EPOLL_CTL_ADD, wakeFD, RG_EPOLLIN, Self.wakeData)
        readBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, readBufferSize), alignment: 16)
    }

    deinit {
        readBuffer.deallocate()
        close(wakeFD)
        close(epollFD)
    }

    /// Whether the caller runs on this loop's thread. Callable from any thread.
    public var inEventLoop: Bool { loopThread.load(ordering: .relaxed) == UInt(bitPattern: Int(bitPattern: UInt(pthread_self()))) }

    /// Runs `task` on this loop's thread, soon (in order with the other tasks handed over).
    /// Callable from any thread.
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
        let (sum, overflow) = rg_monotonic_nanoseconds().addingReportingOverflow(delay.nanoseconds)
        let deadline = overflow ? UInt64.max : sum
        if inEventLoop {
            timers.push(deadline: deadline, .task(scheduled))
        } else {
            execute { [self] in self.timers.push(deadline: deadline, .task(scheduled)) }
        }
        return scheduled
    }

    // MARK: the loop

    /// Asks the loop to finish after the current tick. Callable from any thread.
    func requestStop() {
        // Releasing, paired with the loop's acquiring load: a task handed over before the stop
        // was asked for is seen by the loop's final sweep.
        stopRequested.store(true, ordering: .releasing)
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
        while !stopRequested.load(ordering: .acquiring) {
            let count = rg_epoll_wait(epollFD, events, Int32(capacity), pollTimeoutMilliseconds())
            now = rg_monotonic_nanoseconds()
            if count > 0 {
                for i in 0..<Int(count) {
                    dispatch(events[i])
                }
            }
            for hook in tickHooks { hook.afterEvents() }
            runPendingTasks()
            runDueTimers()
            for hook in tickHooks { hook.beforeSleep() }
        }
        // Final sweep: run what was handed over so that no continuation is left waiting.
        runPendingTasks()
        for hook in tickHooks { hook.beforeSleep() }
        // Scheduled tasks never run now; dropping them breaks the cycles their closures may
        // hold through this loop.
        timers.removeAll()
    }

    private func pollTimeoutMilliseconds() -> Int32 {
        if tasksQueuedOnLoop { return 0 }
        for hook in tickHooks where hook.hasWorkLeft { return 0 }
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
        // Timers scheduled by the ones run here wait for the next tick: one that reschedules
        // itself with no delay cannot keep the loop from its descriptors and tasks.
        let pushedBy = timers.lastSequence
        while let entry = timers.popDue(now: current, pushedBy: pushedBy) {
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
}
