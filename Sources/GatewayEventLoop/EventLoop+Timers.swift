import CGatewayLinux
import Synchronization

/// Something an event loop calls back when a deadline it armed is reached.
///
/// Deadlines are lazy: a connection pushes one entry and then only moves its own
/// deadline field on activity; when the entry fires it checks the field and
/// re-arms if the deadline moved. Idle connections therefore cost no work at
/// all until the earliest deadline, and activity costs no heap operation.
public protocol EventLoopDeadlineTarget: AnyObject {
    /// Called on the loop thread when a deadline armed at `deadline` is reached.
    func deadlineReached(_ deadline: UInt64, now: UInt64)
}

extension EventLoop {
    /// Arms a deadline (monotonic nanoseconds) for the ``EventLoopDeadlineTarget`` registered as
    /// `fd`. Loop thread only. The entry is dropped if `fd` is deregistered before it fires.
    public func armDeadline(_ deadline: UInt64, forRegistered fd: Int32) {
        assert(inEventLoop)
        let slot = Int(fd)
        guard slot >= 0, slot < tokens.count, tokens[slot] != 0 else { return }
        timers.push(deadline: deadline, .target(DeadlineTargetSlot(slot: fd, token: tokens[slot])))
    }
}

/// A registered descriptor's deadline target, as kept in the timer heap: its epoll slot
/// and registration token, looked up when the entry fires.
///
/// Not a `weak` reference: a weakly referenced object gets a side table, and every
/// retain and release of it (a connection is retained and released many times per
/// message) then takes the runtime's slow path. A closed connection is deregistered, so
/// its entries find its slot empty or reused under another token, and it is freed at
/// once, as with a weak reference.
struct DeadlineTargetSlot {
    var slot: Int32
    var token: UInt32
}

/// A task scheduled on an event loop for later; cancel it from any thread.
public final class ScheduledTask: Sendable {
    let task: @Sendable () -> Void
    private let cancelled = Atomic<Bool>(false)

    init(_ task: @escaping @Sendable () -> Void) { self.task = task }

    /// Prevents the task from running if it has not run yet.
    public func cancel() { cancelled.store(true, ordering: .relaxed) }

    var isCancelled: Bool { cancelled.load(ordering: .relaxed) }
}

/// A binary min-heap of deadlines in monotonic nanoseconds, ordered by deadline
/// then insertion sequence (so equal deadlines run in order).
struct TimerHeap {
    /// What to do when an entry's deadline is reached.
    enum Action {
        /// Run a scheduled task unless it was cancelled.
        case task(ScheduledTask)
        /// Tell a connection its deadline may have come. Held by epoll slot and token, not
        /// strongly: a closed connection is freed at once, not when its last idle deadline
        /// would have passed.
        case target(DeadlineTargetSlot)
    }

    struct Entry {
        var deadline: UInt64
        var sequence: UInt64
        var action: Action

        func precedes(_ other: Entry) -> Bool {
            deadline < other.deadline || (deadline == other.deadline && sequence < other.sequence)
        }
    }

    private var entries: [Entry] = []
    private var sequence: UInt64 = 0

    var count: Int { entries.count }
    var earliestDeadline: UInt64? { entries.first?.deadline }
    /// The sequence number of the latest entry pushed: entries pushed later have higher ones.
    var lastSequence: UInt64 { sequence }

    mutating func push(deadline: UInt64, _ action: Action) {
        sequence &+= 1
        entries.append(Entry(deadline: deadline, sequence: sequence, action: action))
        var child = entries.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard entries[child].precedes(entries[parent]) else { break }
            entries.swapAt(child, parent)
            child = parent
        }
    }

    /// Removes and returns the earliest entry if its deadline is at or before `now` and it was
    /// pushed no later than the entry numbered `pushedBy` (the loop passes the latest number
    /// when its pass over the due timers starts, so that a timer scheduled by a timer's run
    /// waits for the next tick even when its deadline is already due).
    mutating func popDue(now: UInt64, pushedBy: UInt64 = .max) -> Entry? {
        guard let first = entries.first, first.deadline <= now, first.sequence <= pushedBy else { return nil }
        let last = entries.removeLast()
        if entries.isEmpty { return first }
        entries[0] = last
        var parent = 0
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < entries.count, entries[left].precedes(entries[smallest]) { smallest = left }
            if right < entries.count, entries[right].precedes(entries[smallest]) { smallest = right }
            if smallest == parent { break }
            entries.swapAt(parent, smallest)
            parent = smallest
        }
        return first
    }

    mutating func removeAll() { entries.removeAll() }
}
