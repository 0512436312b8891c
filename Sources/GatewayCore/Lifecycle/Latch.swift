import Synchronization

/// A one-way signal: unset at first, set once, and every waiter, past and future, hears of it.
/// Waiting takes a limit, so a caller waits for the event it needs (a close, the last
/// connection gone) instead of polling a flag.
public final class Latch: Sendable {
    private struct State {
        var isSet = false
        var nextWaiter: UInt64 = 0
        var waiters: [UInt64: CheckedContinuation<Bool, Never>] = [:]
        /// Waits whose task was cancelled before they were registered.
        var expired: Set<UInt64> = []
    }
    private let state = Mutex(State())

    public init() {}

    /// Whether ``set()`` has been called.
    public var isSet: Bool { state.withLock { $0.isSet } }

    /// Sets the latch and wakes every waiter. Later calls do nothing.
    public func set() {
        let waiters = state.withLock { state -> [CheckedContinuation<Bool, Never>] in
            guard !state.isSet else { return [] }
            state.isSet = true
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume(returning: true) }
    }

    /// Waits until the latch is set (true) or `limit` passes (false). A cancelled task stops
    /// waiting at once (false). The limit's timer is a child task of this call, ended with it.
    public func wait(atMost limit: Duration) async -> Bool {
        if isSet { return true }
        return await withTaskGroup(of: Bool.self) { group in
            group.addTask { await self.wait() }
            group.addTask {
                try? await Task.sleep(for: limit)
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
    }

    /// Waits until the latch is set (true). A cancelled task stops waiting at once (false).
    public func wait() async -> Bool {
        if isSet { return true }
        let id = state.withLock { state -> UInt64 in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        defer { state.withLock { _ = $0.expired.remove(id) } }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let resumeNow = state.withLock { state -> Bool? in
                    if state.isSet { return true }
                    if state.expired.remove(id) != nil { return false }
                    state.waiters[id] = continuation
                    return nil
                }
                if let resumeNow { continuation.resume(returning: resumeNow) }
            }
        } onCancel: {
            resume(id, with: false)
        }
    }

    /// Resumes one waiter if it is waiting, or marks it expired if it has not registered yet.
    private func resume(_ id: UInt64, with value: Bool) {
        let waiter = state.withLock { state -> CheckedContinuation<Bool, Never>? in
            if let waiter = state.waiters.removeValue(forKey: id) { return waiter }
            if !state.isSet { state.expired.insert(id) }
            return nil
        }
        waiter?.resume(returning: value)
    }
}
