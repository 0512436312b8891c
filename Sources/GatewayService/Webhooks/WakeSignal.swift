import Synchronization

/// Wakes one waiting task early: a ring while nobody waits is kept for the next wait.
final class WakeSignal: Sendable {
    private struct State {
        var rung = false
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = Mutex(State())

    func ring() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard let waiter = state.waiter else {
                state.rung = true
                return nil
            }
            state.waiter = nil
            return waiter
        }
        waiter?.resume()
    }

    /// Returns at the next ring (or at once if one came since the last wait), after `limit`,
    /// or when the task is cancelled.
    func wait(atMost limit: Duration) async {
        let timer = Task { [weak self] in
            try? await Task.sleep(for: limit)
            self?.ring()
        }
        defer { timer.cancel() }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state -> Bool in
                    if state.rung || Task.isCancelled {
                        state.rung = false
                        return true
                    }
                    state.waiter = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            ring()
        }
        state.withLock { $0.rung = false }
    }
}
