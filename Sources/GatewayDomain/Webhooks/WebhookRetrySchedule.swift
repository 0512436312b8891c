/// When a failed webhook delivery is tried again: exponential backoff with jitter.
///
/// After attempt `n` (1 for the first) the delay is `base × 2^(n−1)`, capped at `cap`, then
/// scaled by a random factor in [0.5, 1) ("equal jitter"): replicas retrying the same endpoint
/// spread out instead of arriving together, and no retry comes sooner than half its step.
/// The retry window (3 days by default) bounds the whole: the store gives a delivery up, and
/// disables its endpoint, once it is exceeded.
public struct WebhookRetrySchedule: Sendable, Hashable {
    public var baseMs: Int64
    public var capMs: Int64

    /// `base` 30 s and `cap` 6 h by default: attempts at about 0.5, 1, 2, 4, ... minutes, then
    /// every 3 to 6 hours until the window closes.
    public init(baseMs: Int64 = 30_000, capMs: Int64 = 6 * 3_600_000) {
        self.baseMs = max(1, baseMs)
        self.capMs = max(self.baseMs, capMs)
    }

    /// The step after `attempt` (1-based) before jitter.
    public func step(afterAttempt attempt: Int) -> Int64 {
        let doublings = max(0, min(attempt - 1, 40))
        let (scaled, overflow) = baseMs.multipliedReportingOverflow(by: Int64(1) << doublings)
        return overflow ? capMs : min(capMs, scaled)
    }

    /// The delay after `attempt`, with `unitRandom` in [0, 1) choosing the jitter.
    public func delay(afterAttempt attempt: Int, unitRandom: Double) -> Int64 {
        let step = Double(step(afterAttempt: attempt))
        let factor = 0.5 + 0.5 * min(max(unitRandom, 0), 0.999_999)
        return max(1, Int64(step * factor))
    }
}
