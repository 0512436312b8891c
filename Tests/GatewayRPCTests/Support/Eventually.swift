/// Polls `condition` every few milliseconds until it holds or `timeout` passes (bounded in count).
func eventually(timeout: Duration = .seconds(5), _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    for _ in 0..<100_000 {
        if condition() { return true }
        if ContinuousClock.now >= deadline { return false }
        try? await Task.sleep(for: .milliseconds(2))
    }
    return condition()
}

/// Runs `body` with a time limit; throws when it does not finish in time.
func withTimeLimit<T: Sendable>(_ limit: Duration, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: limit)
            return nil
        }
        guard let first = try await group.next(), let value = first else {
            group.cancelAll()
            throw TimeLimitExceeded(limit: limit)
        }
        group.cancelAll()
        return value
    }
}

struct TimeLimitExceeded: Error, CustomStringConvertible {
    var limit: Duration
    var description: String { "did not finish within \(limit)" }
}
