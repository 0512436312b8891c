/// When a client that lost its link dials again: capped exponential backoff with full jitter.
///
/// The wait before attempt `n` (0 for the first retry after a link ends) is uniform in
/// `0 ... min(cap, base × 2ⁿ)`. When a replica dies, its readers all lose their link in the same
/// instant; a fixed delay brings them back in the same instant too, and those that fail (a
/// handshake that timed out against the saturated survivor) come back together again. Full
/// jitter spreads each wave over its whole window, and the doubling makes a saturated gateway
/// see fewer and fewer retries rather than a steady stream of handshakes it cannot finish.
/// A successful attach resets the count: the next lost link starts from the base window.
///
/// A pure value: the caller keeps it with the reader, asks ``nextDelay(using:)`` before each
/// dial and calls ``reset()`` when an attach succeeds.
public struct ReconnectBackoff: Sendable, Hashable {
    /// The window of the first retry (reader-sim's `--reconnect-delay`).
    public let base: Duration
    /// The largest window (reader-sim's `--reconnect-delay-max`); at least ``base``.
    public let cap: Duration
    /// Attempts since the last successful attach (the exponent of the next window).
    public private(set) var attempt: Int = 0

    public init(base: Duration, cap: Duration) {
        precondition(base >= .zero, "a reconnect delay is not negative")
        self.base = base
        self.cap = max(base, cap)
    }

    /// The window of attempt `attempt`: `min(cap, base × 2^attempt)`.
    public static func window(attempt: Int, base: Duration, cap: Duration) -> Duration {
        let cap = max(base, cap)
        guard base > .zero else { return .zero }
        // Doubling past the cap's ratio (or 62 times) cannot get below the cap again.
        var window = base
        var doublings = 0
        while doublings < attempt, window < cap, doublings < 62 {
            window = window * 2
            doublings += 1
        }
        return min(window, cap)
    }

    /// The wait before attempt `attempt`: uniform in `0 ... window(attempt:)`, at nanosecond grain.
    public static func delay<Random: RandomNumberGenerator>(attempt: Int, base: Duration, cap: Duration, using random: inout Random) -> Duration {
        let window = Self.window(attempt: attempt, base: base, cap: cap)
        let nanoseconds = window.nanosecondsClamped
        guard nanoseconds > 0 else { return .zero }
        return .nanoseconds(Int64.random(in: 0...nanoseconds, using: &random))
    }

    /// The window of the next attempt.
    public var window: Duration { Self.window(attempt: attempt, base: base, cap: cap) }

    /// The wait before the next attempt; counts the attempt, so the one after waits in a window
    /// twice as long (up to the cap) unless ``reset()`` comes first.
    public mutating func nextDelay<Random: RandomNumberGenerator>(using random: inout Random) -> Duration {
        let delay = Self.delay(attempt: attempt, base: base, cap: cap, using: &random)
        if attempt < 62 { attempt += 1 }
        return delay
    }

    /// The wait before the next attempt, from the system's random source.
    public mutating func nextDelay() -> Duration {
        var random = SystemRandomNumberGenerator()
        return nextDelay(using: &random)
    }

    /// An attach succeeded: the next lost link retries within the base window.
    public mutating func reset() { attempt = 0 }
}

extension Duration {
    /// Whole nanoseconds, clamped to `Int64`.
    fileprivate var nanosecondsClamped: Int64 {
        let (seconds, attoseconds) = components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return seconds < 0 ? Int64.min : Int64.max }
        return scaled &+ attoseconds / 1_000_000_000
    }
}
