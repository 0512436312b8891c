import GatewayCore
import GatewayDomain
import GatewayOperations
import GatewayPostgres
import Synchronization

/// Limits failed authentications per source address and per account (PROTOCOL.md section 22).
///
/// Successful traffic pays one dictionary read (``lockout(of:surface:)``): the buckets in
/// PostgreSQL are written only when a credential was refused (``failed(source:account:surface:)``),
/// one UPSERT per bucket. A failure that finds its bucket empty locks the source (or account)
/// out; this replica remembers the lock-out until its retry-after, so later calls from that
/// source are refused before their key is looked up. Another replica learns of the lock-out
/// the first time that source fails there (its bucket in PostgreSQL is the same, and empty).
final class AuthenticationLimiter: Sendable {
    let buckets: any AuthFailureBuckets
    let perSource: AuthFailureRule
    let perAccount: AuthFailureRule
    let clock: any ServiceClock
    let metrics: AuthenticationMetrics
    let logger = Logger(component: "auth")
    private let state: Mutex<State>

    private struct State {
        var lockouts = AuthLockoutCache()
        var lastPruneUnixMs: Int64 = 0
    }

    /// How often (at most) a replica deletes buckets that have refilled, on a failure.
    static let pruneIntervalMs: Int64 = 60_000

    init(buckets: any AuthFailureBuckets, perSource: AuthFailureRule, perAccount: AuthFailureRule, clock: any ServiceClock, metrics: AuthenticationMetrics) {
        self.buckets = buckets
        self.perSource = perSource
        self.perAccount = perAccount
        self.clock = clock
        self.metrics = metrics
        self.state = Mutex(State())
    }

    /// The key a call's peer (`host:port`) counts under: its source address (an IPv6 /64), or
    /// the peer as it is when it holds no numeric address (an in-memory transport).
    /// `X-Forwarded-For` and the like are never read: the socket's peer is the source.
    static func sourceKey(peer: String) -> String {
        SourceAddress(peer: peer)?.description ?? peer
    }

    /// The lock-out `source` is under on this replica, if any (counted as a refusal on `surface`).
    func lockout(of source: String, surface: AuthSurface) -> AuthLockout? {
        let now = clock.nowUnixMs
        let remaining = state.withLock { $0.lockouts.remaining(.init(.source, source), nowUnixMs: now) }
        guard let remaining else { return nil }
        metrics.limited.labels(surface).increment()
        return AuthLockout(scope: .source, subject: source, retryAfter: remaining)
    }

    /// Counts a refused credential from `source` (and against `account`, when the refused
    /// secret names one). Returns the lock-out to answer with instead of the refusal when a
    /// bucket was empty (or the account is already locked out); nil: answer the refusal as usual.
    /// A store failure here lets the refusal through unlimited (and is logged).
    func failed(source: String, account: String?, surface: AuthSurface) async -> AuthLockout? {
        metrics.failures.labels(surface).increment()
        let now = clock.nowUnixMs
        let (known, prune) = state.withLock { state -> (Duration?, Bool) in
            let known = account.flatMap { state.lockouts.remaining(.init(.account, $0), nowUnixMs: now) }
            let prune = now - state.lastPruneUnixMs >= Self.pruneIntervalMs
            if prune { state.lastPruneUnixMs = now }
            return (known, prune)
        }
        if prune { await deleteRefilledBuckets(now: now) }
        if let known, let account {
            metrics.limited.labels(surface).increment()
            return AuthLockout(scope: .account, subject: account, retryAfter: known)
        }
        var lockout = await take(.source, source, rule: perSource, now: now, surface: surface)
        if let account, let byAccount = await take(.account, account, rule: perAccount, now: now, surface: surface) {
            if lockout.map({ byAccount.retryAfter > $0.retryAfter }) ?? true { lockout = byAccount }
        }
        if lockout != nil { metrics.limited.labels(surface).increment() }
        return lockout
    }

    private func take(_ scope: AuthLimitScope, _ key: String, rule: AuthFailureRule, now: Int64, surface: AuthSurface) async -> AuthLockout? {
        let decision: AuthFailureDecision
        do { decision = try await buckets.takeFailure(scope, key: key, rule: rule, nowUnixMs: now) } catch {
            logger.warning("could not count a failed authentication; it is answered unlimited", ["scope": scope.rawValue, "error": error])
            return nil
        }
        guard case .lockedOut(let retryAfter) = decision else { return nil }
        let firstHere = state.withLock { state -> Bool in
            let known = state.lockouts.remaining(.init(scope, key), nowUnixMs: now) != nil
            state.lockouts.lock(.init(scope, key), for: retryAfter, nowUnixMs: now)
            return !known
        }
        if firstHere {
            metrics.lockouts.labels(scope == .source ? AuthLockoutScope.source : .account).increment()
            logger.warning(
                "authentication locked out: too many failures",
                ["scope": scope.rawValue, "subject": key, "surface": surface.labelValue, "retry_after_ms": retryAfter.millisecondsRoundedUp]
            )
        }
        return AuthLockout(scope: scope, subject: key, retryAfter: retryAfter)
    }

    private func deleteRefilledBuckets(now: Int64) async {
        let fullAfterMs = Int64(max(perSource.burst / perSource.refillPerSecond, perAccount.burst / perAccount.refillPerSecond) * 1000)
        do { _ = try await buckets.deleteBuckets(updatedBefore: now - fullAfterMs) } catch {
            logger.debug("could not delete refilled failure buckets", ["error": error])
        }
    }
}
