import GatewayCore

/// How many failed authentications one source address (or one account) may make: `burst` at
/// once, then `refillPerSecond`; each failure costs `costPerFailure` tokens.
///
/// The gateway keeps the buckets in PostgreSQL so that every replica takes from the same one;
/// ``AuthFailureBucket/takeFailure(_:nowUnixMs:)`` is the arithmetic its one statement does
/// (`AuthFailureBucketStore`), kept here so it is tested without I/O.
public struct AuthFailureRule: Sendable, Hashable {
    /// Failures allowed back to back (the bucket's capacity).
    public var burst: Double
    /// Tokens added back per second, up to `burst`.
    public var refillPerSecond: Double
    /// Tokens one failure takes.
    public var costPerFailure: Double

    public init(burst: Double, refillPerSecond: Double, costPerFailure: Double = 1) {
        precondition(burst >= costPerFailure && refillPerSecond > 0 && costPerFailure > 0, "an authentication failure rule needs burst ≥ cost > 0 and a positive refill")
        self.burst = burst
        self.refillPerSecond = refillPerSecond
        self.costPerFailure = costPerFailure
    }

    /// Per source address: 20 failures at once, then one every 6 seconds (10 a minute).
    public static let perSource = AuthFailureRule(burst: 20, refillPerSecond: 1.0 / 6)
    /// Per account (where a failure names one): 50 at once, then 30 a minute.
    public static let perAccount = AuthFailureRule(burst: 50, refillPerSecond: 0.5)
}

/// One bucket of failed authentications: the tokens it held at `updatedUnixMs`.
///
/// A new bucket is full. A failure refills the bucket by the time elapsed since it was last
/// updated (never past `burst`, never by a negative time: replicas' clocks differ a little)
/// and takes `costPerFailure` if the bucket then holds it. Otherwise the failure is refused
/// and the bucket is left as it was (so refused guesses do not move the end of a lock-out),
/// and the answer says how long until one failure's worth of tokens is back.
public struct AuthFailureBucket: Sendable, Hashable {
    public var tokens: Double
    public var updatedUnixMs: Int64

    /// A full bucket at `nowUnixMs`.
    public init(full rule: AuthFailureRule, nowUnixMs: Int64) {
        tokens = rule.burst
        updatedUnixMs = nowUnixMs
    }

    public init(tokens: Double, updatedUnixMs: Int64) {
        self.tokens = tokens
        self.updatedUnixMs = updatedUnixMs
    }

    /// The tokens the bucket holds at `nowUnixMs`.
    public func refilled(_ rule: AuthFailureRule, nowUnixMs: Int64) -> Double {
        let elapsed = Double(max(0, nowUnixMs - updatedUnixMs)) / 1000
        return min(rule.burst, tokens + elapsed * rule.refillPerSecond)
    }

    /// One failed authentication at `nowUnixMs`.
    public mutating func takeFailure(_ rule: AuthFailureRule, nowUnixMs: Int64) -> AuthFailureDecision {
        let refilled = refilled(rule, nowUnixMs: nowUnixMs)
        guard refilled >= rule.costPerFailure else { return .lockedOut(retryAfter: Self.retryAfter(tokens: refilled, rule: rule)) }
        tokens = refilled - rule.costPerFailure
        updatedUnixMs = max(updatedUnixMs, nowUnixMs)
        return .counted(tokensLeft: tokens)
    }

    /// How long until a bucket holding `tokens` holds one failure's cost, in whole
    /// milliseconds rounded up (a nanosecond of floating-point noise is not a millisecond more).
    public static func retryAfter(tokens: Double, rule: AuthFailureRule) -> Duration {
        let milliseconds = max(0, rule.costPerFailure - tokens) / rule.refillPerSecond * 1000
        return .milliseconds(Int64((milliseconds - 1e-6).rounded(.up)))
    }
}

/// What one failed authentication did to its bucket.
public enum AuthFailureDecision: Sendable, Hashable {
    /// The failure was counted; the bucket holds `tokensLeft`. The caller answers the failure as usual.
    case counted(tokensLeft: Double)
    /// The bucket was empty: the source (or account) is locked out for `retryAfter`.
    case lockedOut(retryAfter: Duration)
}
