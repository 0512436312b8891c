import Synchronization

/// Opened once by a test; ``wait()`` returns when it is open, at once if it already is, or when
/// the waiting task is cancelled.
///
/// A test holds work at a point of its choosing (a store call, a reader's timer, a loop's tick),
/// checks what it wants to see meanwhile (``isWaiting`` says the work got there), then lets it go.
public final class Gate: Sendable {
    private struct State {
        var isOpen = false
        var nextWaiter: UInt64 = 0
        var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
    }

    private let state = Mutex(State())

    public init() {}

    /// Whether a task is waiting on the gate now.
    public var isWaiting: Bool { state.withLock { !$0.waiters.isEmpty } }

    /// Opens the gate for every waiter, now and later.
    public func open() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.isOpen = true
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once the gate is open, or once the waiting task is cancelled.
    public func wait() async {
        let id = state.withLock { state -> UInt64 in
            defer { state.nextWaiter += 1 }
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                // The cancellation flag is set before the handler below runs, and the handler
                // takes the lock: a waiter is either never kept or found by the handler.
                let goNow = state.withLock { state -> Bool in
                    if state.isOpen || Task.isCancelled { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if goNow { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
        }
    }
}
