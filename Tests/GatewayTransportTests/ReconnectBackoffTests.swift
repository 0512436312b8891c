import GatewayTestKit
import GatewayTransport
import Testing

/// Capped exponential backoff with full jitter, driven by a seeded random source.
@Suite struct ReconnectBackoffTests {
    @Test func windowsDoubleFromTheBaseUpToTheCap() {
        let windows = (0..<8).map { ReconnectBackoff.window(attempt: $0, base: .milliseconds(500), cap: .seconds(10)) }
        #expect(windows == [
            .milliseconds(500), .seconds(1), .seconds(2), .seconds(4), .seconds(8), .seconds(10), .seconds(10), .seconds(10),
        ])
        #expect(ReconnectBackoff.window(attempt: 10_000, base: .milliseconds(500), cap: .seconds(10)) == .seconds(10))
    }

    @Test func everyDelayLiesWithinItsWindow() {
        var random = SplitMix64(seed: 35)
        for attempt in 0..<12 {
            let window = ReconnectBackoff.window(attempt: attempt, base: .milliseconds(100), cap: .seconds(3))
            for _ in 0..<200 {
                let delay = ReconnectBackoff.delay(attempt: attempt, base: .milliseconds(100), cap: .seconds(3), using: &random)
                #expect(delay >= .zero && delay <= window, "attempt \(attempt): \(delay) outside 0...\(window)")
            }
        }
    }

    @Test func delaysSpreadOverTheWholeWindow() {
        // Full jitter: a storm's first retries land anywhere in the base window, not at its end.
        var random = SplitMix64(seed: 7)
        let delays = (0..<1_000).map { _ in ReconnectBackoff.delay(attempt: 0, base: .seconds(1), cap: .seconds(1), using: &random) }
        #expect(delays.contains { $0 < .milliseconds(100) })
        #expect(delays.contains { $0 > .milliseconds(900) })
        let quarters = (0..<4).map { quarter in
            delays.filter { $0 >= .milliseconds(250 * quarter) && $0 < .milliseconds(250 * (quarter + 1)) }.count
        }
        #expect(quarters.allSatisfy { $0 > 200 }, "quarters \(quarters)")
    }

    @Test func aSeededSourceGivesTheSameDelays() {
        var first = SplitMix64(seed: 2026)
        var second = SplitMix64(seed: 2026)
        var one = ReconnectBackoff(base: .milliseconds(50), cap: .seconds(5))
        var other = ReconnectBackoff(base: .milliseconds(50), cap: .seconds(5))
        let a = (0..<10).map { _ in one.nextDelay(using: &first) }
        let b = (0..<10).map { _ in other.nextDelay(using: &second) }
        #expect(a == b)
        #expect(Set(a).count > 1)
    }

    @Test func eachAttemptDoublesTheWindowAndAnAttachResetsIt() {
        var random = SplitMix64(seed: 1)
        var backoff = ReconnectBackoff(base: .milliseconds(200), cap: .seconds(1))
        #expect(backoff.window == .milliseconds(200))
        _ = backoff.nextDelay(using: &random)
        #expect(backoff.window == .milliseconds(400))
        _ = backoff.nextDelay(using: &random)
        _ = backoff.nextDelay(using: &random)
        #expect(backoff.window == .seconds(1))
        #expect(backoff.attempt == 3)
        backoff.reset()
        #expect(backoff.attempt == 0)
        #expect(backoff.window == .milliseconds(200))
        #expect(backoff.nextDelay(using: &random) <= .milliseconds(200))
    }

    @Test func aZeroBaseRetriesAtOnceAndACapBelowTheBaseIsTheBase() {
        var random = SplitMix64(seed: 3)
        var immediate = ReconnectBackoff(base: .zero, cap: .seconds(30))
        #expect((0..<5).map { _ in immediate.nextDelay(using: &random) } == Array(repeating: .zero, count: 5))
        let fixed = ReconnectBackoff(base: .seconds(2), cap: .milliseconds(500))
        #expect(fixed.cap == .seconds(2))
        #expect(ReconnectBackoff.window(attempt: 4, base: .seconds(2), cap: .milliseconds(500)) == .seconds(2))
    }
}
