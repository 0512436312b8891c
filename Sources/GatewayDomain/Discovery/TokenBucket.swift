import GatewayCore

/// A token bucket: up to `capacity` actions at once, refilled at `refillPerSecond`.
///
/// Pure: the caller passes the time, so tests need no clock.
public struct TokenBucket: Sendable, Hashable {
    public let capacity: Double
    public let refillPerSecond: Double
    private var tokens: Double
    private var updatedAt: ContinuousClock.Instant?

    public init(capacity: Int, refillPerSecond: Double) {
        precondition(capacity > 0 && refillPerSecond > 0, "a token bucket needs a positive capacity and refill rate")
        self.capacity = Double(capacity)
        self.refillPerSecond = refillPerSecond
        self.tokens = Double(capacity)
    }

    /// Takes one token if there is one; otherwise says how long until there is.
    public mutating func take(at now: ContinuousClock.Instant) -> TakeResult {
        if let updatedAt {
            let elapsed = (now - updatedAt).seconds
            if elapsed > 0 { tokens = min(capacity, tokens + elapsed * refillPerSecond) }
        }
        updatedAt = now
        if tokens >= 1 {
            tokens -= 1
            return .granted
        }
        let wait = (1 - tokens) / refillPerSecond
        return .denied(retryAfter: .nanoseconds(Int64((wait * 1_000_000_000).rounded(.up))))
    }

    /// The outcome of ``take(at:)``.
    public enum TakeResult: Sendable, Hashable {
        case granted
        case denied(retryAfter: Duration)
    }
}
