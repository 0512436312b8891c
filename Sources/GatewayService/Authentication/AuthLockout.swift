import GatewayCore
import GatewayDomain

/// A source address or an account locked out of authenticating, and for how long: what a
/// refused call or sign-in is answered with.
struct AuthLockout: Sendable, Hashable {
    let scope: AuthLimitScope
    /// The source address (`203.0.113.7`, or an IPv6 /64) or the account id.
    let subject: String
    let retryAfter: Duration

    /// The retry-after in whole milliseconds, rounded up (at least 1).
    var retryAfterMs: Int64 { max(1, retryAfter.millisecondsRoundedUp) }

    /// The retry-after in whole seconds, rounded up (HTTP's `Retry-After`).
    var retryAfterSeconds: Int64 { (retryAfterMs + 999) / 1000 }

    /// What happened and what to do.
    var message: String {
        switch scope {
        case .source:
            "too many failed authentications from \(subject): this address is locked out and every key it sends is refused unchecked; retry in \(retryAfterMs) ms, with a correct key"
        case .account:
            "too many failed authentications named account \(subject) (secrets of its keys that were rolled, revoked or expired); retry in \(retryAfterMs) ms, with a current key"
        }
    }

    /// The RESOURCE_EXHAUSTED a call is refused with.
    var error: ServiceError { ServiceError(.authenticationRateLimited, message, retryAfter: retryAfter) }
}
