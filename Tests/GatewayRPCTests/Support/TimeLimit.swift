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
