import Foundation
import Synchronization

/// Waits until `condition` holds or `timeout` passes; polls every `interval`.
func eventuallyIgnoringErrors(
    timeout: Duration = .seconds(10), interval: Duration = .milliseconds(50), _ condition: () async throws -> Bool
) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while true {
        if (try? await condition()) == true { return true }
        if ContinuousClock.now >= deadline { return false }
        try? await Task.sleep(for: interval)
    }
}

/// Seconds of a duration, for printing.
func seconds(_ duration: Duration) -> String {
    let (whole, fraction) = duration.components
    return String(format: "%.2f s", Double(whole) + Double(fraction) / 1e18)
}

/// Runs `operation` and returns its result, or throws when it has not finished within
/// `limit` (the operation is cancelled and left behind: a call stuck on a peer that went away
/// must fail the test, never hang it).
@discardableResult
func withDeadline<T: Sendable>(_ limit: Duration, _ what: String, _ operation: @escaping @Sendable () async throws -> T) async throws -> T {
    let outcome = DeadlineOutcome<T>()
    return try await withCheckedThrowingContinuation { continuation in
        outcome.set(continuation)
        let work = Task {
            do {
                outcome.resume(with: .success(try await operation()))
            } catch {
                outcome.resume(with: .failure(error))
            }
        }
        Task {
            try? await Task.sleep(for: limit)
            work.cancel()
            outcome.resume(with: .failure(ClusterError("\(what) did not finish within \(limit)")))
        }
    }
}

/// The first of the operation and the timer resumes the continuation.
private final class DeadlineOutcome<T: Sendable>: Sendable {
    private let slot = Mutex<CheckedContinuation<T, any Error>?>(nil)
    func set(_ continuation: CheckedContinuation<T, any Error>) { slot.withLock { $0 = continuation } }
    func resume(with result: Result<T, any Error>) {
        slot.withLock { slot -> CheckedContinuation<T, any Error>? in
            defer { slot = nil }
            return slot
        }?.resume(with: result)
    }
}

/// The wall-clock time as the replicas' logs print it (UTC, milliseconds), to line a test's
/// observations up with the logs.
func wallClock() -> String {
    let now = Date().timeIntervalSince1970
    let day = Int(now) % 86_400
    return String(format: "%02d:%02d:%02d.%03dZ", day / 3600, day / 60 % 60, day % 60, Int((now - now.rounded(.down)) * 1000))
}
