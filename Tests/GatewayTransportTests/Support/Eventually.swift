import Foundation

/// Polls `condition` every few milliseconds until it holds or `timeout` passes (bounded in count).
func eventually(timeout: Duration = .seconds(5), interval: Duration = .milliseconds(2), _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    for _ in 0..<100_000 {
        if condition() { return true }
        if ContinuousClock.now >= deadline { return false }
        try? await Task.sleep(for: interval)
    }
    return condition()
}
