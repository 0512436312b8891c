import GatewayCore
import GatewayDomain
import Testing

/// The bucket of failed authentications without I/O: the burst, the refill by elapsed time,
/// a refused failure leaving the bucket as it was, the retry-after, and a clock that steps back.
@Suite("Failed authentication bucket")
struct AuthFailureBucketTests {
    static let rule = AuthFailureRule(burst: 3, refillPerSecond: 0.5)

    @Test func theBurstIsCountedThenTheNextFailureIsLockedOutUntilOneTokenIsBack() {
        var bucket = AuthFailureBucket(full: Self.rule, nowUnixMs: 0)
        #expect(bucket.takeFailure(Self.rule, nowUnixMs: 0) == .counted(tokensLeft: 2))
        #expect(bucket.takeFailure(Self.rule, nowUnixMs: 0) == .counted(tokensLeft: 1))
        #expect(bucket.takeFailure(Self.rule, nowUnixMs: 0) == .counted(tokensLeft: 0))
        #expect(bucket.takeFailure(Self.rule, nowUnixMs: 0) == .lockedOut(retryAfter: .milliseconds(2000)))
        // 1.5 s later three quarters of a token is back: still locked, for the rest of it.
        #expect(bucket.takeFailure(Self.rule, nowUnixMs: 1500) == .lockedOut(retryAfter: .milliseconds(500)))
        // A refused failure leaves the bucket as it was.
        #expect(bucket == AuthFailureBucket(tokens: 0, updatedUnixMs: 0))
        #expect(bucket.takeFailure(Self.rule, nowUnixMs: 2000) == .counted(tokensLeft: 0))
    }

    @Test func refusedFailuresTakeNothingSoTheLockOutEndsWhenItSaid() {
        var bucket = AuthFailureBucket(tokens: 0, updatedUnixMs: 0)
        for at in stride(from: Int64(0), to: 2000, by: 100) {
            guard case .lockedOut(let retryAfter) = bucket.takeFailure(Self.rule, nowUnixMs: at) else {
                Issue.record("a failure at \(at) ms was counted from an empty bucket")
                return
            }
            #expect(retryAfter == .milliseconds(2000 - at))
        }
        #expect(bucket.takeFailure(Self.rule, nowUnixMs: 2000) == .counted(tokensLeft: 0))
    }

    @Test func theRefillStopsAtTheBurstAndAClockThatStepsBackRefillsNothing() {
        var bucket = AuthFailureBucket(tokens: 0, updatedUnixMs: 10_000)
        #expect(bucket.takeFailure(Self.rule, nowUnixMs: 9_000) == .lockedOut(retryAfter: .milliseconds(2000)))
        #expect(bucket.updatedUnixMs == 10_000)
        #expect(bucket.takeFailure(Self.rule, nowUnixMs: 1_000_000) == .counted(tokensLeft: 2))
    }

    @Test func aCostAboveOneTakesThatMany() {
        let rule = AuthFailureRule(burst: 10, refillPerSecond: 1, costPerFailure: 4)
        var bucket = AuthFailureBucket(full: rule, nowUnixMs: 0)
        #expect(bucket.takeFailure(rule, nowUnixMs: 0) == .counted(tokensLeft: 6))
        #expect(bucket.takeFailure(rule, nowUnixMs: 0) == .counted(tokensLeft: 2))
        #expect(bucket.takeFailure(rule, nowUnixMs: 0) == .lockedOut(retryAfter: .milliseconds(2000)))
    }
}

/// This replica's memory of lock-outs: until when, forgetting ended ones, and its bound.
@Suite("Lock-out cache")
struct AuthLockoutCacheTests {
    @Test func aLockOutHoldsUntilItsRetryAfterAndIsThenForgotten() {
        var cache = AuthLockoutCache()
        let source = AuthLockoutCache.Subject(.source, "203.0.113.7")
        #expect(cache.remaining(source, nowUnixMs: 0) == nil)
        cache.lock(source, for: .milliseconds(1500), nowUnixMs: 1000)
        #expect(cache.remaining(source, nowUnixMs: 1000) == .milliseconds(1500))
        #expect(cache.remaining(.init(.account, "203.0.113.7"), nowUnixMs: 1000) == nil)
        #expect(cache.remaining(.init(.source, "203.0.113.8"), nowUnixMs: 1000) == nil)
        #expect(cache.remaining(source, nowUnixMs: 2499) == .milliseconds(1))
        #expect(cache.remaining(source, nowUnixMs: 2500) == nil)
        #expect(cache.count == 0)
    }

    @Test func aShorterLockOutDoesNotShortenALongerOne() {
        var cache = AuthLockoutCache()
        let source = AuthLockoutCache.Subject(.source, "198.51.100.1")
        cache.lock(source, for: .seconds(10), nowUnixMs: 0)
        cache.lock(source, for: .seconds(1), nowUnixMs: 0)
        #expect(cache.remaining(source, nowUnixMs: 5000) == .seconds(5))
    }

    @Test func pastItsCapacityEndedLockOutsGoFirstThenThoseEndingSoonest() {
        var cache = AuthLockoutCache(capacity: 3)
        for index in 0..<3 { cache.lock(.init(.source, "10.0.0.\(index)"), for: .seconds(index + 1), nowUnixMs: 0) }
        // At 1.5 s the first has ended: it goes, the others stay.
        cache.lock(.init(.source, "10.0.0.9"), for: .seconds(60), nowUnixMs: 1500)
        #expect(cache.count == 3)
        #expect(cache.remaining(.init(.source, "10.0.0.1"), nowUnixMs: 1500) != nil)
        // None has ended at 1.6 s: the one ending soonest (10.0.0.1) goes.
        cache.lock(.init(.source, "10.0.0.10"), for: .seconds(60), nowUnixMs: 1600)
        #expect(cache.count == 3)
        #expect(cache.remaining(.init(.source, "10.0.0.1"), nowUnixMs: 1600) == nil)
        #expect(cache.remaining(.init(.source, "10.0.0.2"), nowUnixMs: 1600) != nil)
        #expect(cache.remaining(.init(.source, "10.0.0.10"), nowUnixMs: 1600) != nil)
    }
}
