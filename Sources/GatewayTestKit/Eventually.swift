/// How long a test waits for an outcome the product guarantees before it calls the test
/// failed. It is a hang detector, not a timing figure: a passing test never waits for it (the
/// wait ends as soon as the outcome is there), so it is set for the worst machine the suite
/// runs on — every core busy with other work (`make test-repeat LOAD=1`) — not for a quick one.
/// Timing figures belong to `make bench`.
public let outcomeDeadline = Duration.seconds(30)

/// Polls `condition` every `interval` until it holds (true) or `timeout` passes (false).
public func eventually(
    timeout: Duration = outcomeDeadline, interval: Duration = .milliseconds(5), _ condition: () async throws -> Bool
) async rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: interval)
    }
    return try await condition()
}
