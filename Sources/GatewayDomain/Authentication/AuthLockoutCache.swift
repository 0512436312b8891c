import GatewayCore

/// What this replica knows of lock-outs: who is locked out of authenticating and until when.
///
/// A lock-out is decided in PostgreSQL (a failure that found its bucket empty); this replica
/// remembers it here so that, until it ends, calls from the locked-out source are refused
/// before their key is looked up, with no round trip (successful traffic from other sources
/// never consults it beyond a dictionary read). Bounded: past `capacity` entries the ended
/// ones are dropped, then the one that ends soonest.
public struct AuthLockoutCache: Sendable {
    /// What is locked out: a source address or an account.
    public struct Subject: Sendable, Hashable {
        public var scope: AuthLimitScope
        public var key: String

        public init(_ scope: AuthLimitScope, _ key: String) {
            self.scope = scope
            self.key = key
        }
    }

    public let capacity: Int
    private var lockedUntilUnixMs: [Subject: Int64] = [:]

    public init(capacity: Int = 10_000) {
        precondition(capacity > 0, "a lock-out cache needs room for one entry")
        self.capacity = capacity
    }

    /// The number of lock-outs remembered (ended ones included until they are dropped).
    public var count: Int { lockedUntilUnixMs.count }

    /// How long `subject` stays locked out at `nowUnixMs`; nil when it is not (an ended
    /// lock-out is forgotten here).
    public mutating func remaining(_ subject: Subject, nowUnixMs: Int64) -> Duration? {
        guard let until = lockedUntilUnixMs[subject] else { return nil }
        guard until > nowUnixMs else {
            lockedUntilUnixMs[subject] = nil
            return nil
        }
        return .milliseconds(until - nowUnixMs)
    }

    /// Remembers that `subject` is locked out for `retryAfter` from `nowUnixMs` (a later end
    /// than one already remembered wins).
    public mutating func lock(_ subject: Subject, for retryAfter: Duration, nowUnixMs: Int64) {
        let until = nowUnixMs + retryAfter.millisecondsRoundedUp
        lockedUntilUnixMs[subject] = max(lockedUntilUnixMs[subject] ?? until, until)
        guard lockedUntilUnixMs.count > capacity else { return }
        lockedUntilUnixMs = lockedUntilUnixMs.filter { $0.value > nowUnixMs }
        while lockedUntilUnixMs.count > capacity, let soonest = lockedUntilUnixMs.min(by: { $0.value < $1.value }) {
            lockedUntilUnixMs[soonest.key] = nil
        }
    }
}

/// What a bucket of failed authentications counts, and what a lock-out locks.
public enum AuthLimitScope: String, Sendable, Hashable, CaseIterable {
    /// The connection's source address (IPv4, or an IPv6 /64).
    case source
    /// An account, where the failure names one (a retired secret of one of its keys).
    case account
}
