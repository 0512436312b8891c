@testable import GatewayDomain
import Testing

@Suite struct DiscoveryStateMachineTests {
    let start = ContinuousClock.now

    @Test func aSecondDiscoveryFailsUntilTheFirstIsCancelled() {
        var machine = DiscoveryStateMachine()
        #expect(machine.startDiscovery(at: start) == .start(.init(1)))
        #expect(machine.startDiscovery(at: start) == .refuseAlreadyInProgress(running: .init(1)))
        #expect(machine.cancelDiscovery() == .cancelled(.init(1)))
        #expect(machine.cancelDiscovery() == .nothingRunning)
        #expect(machine.startDiscovery(at: start) == .start(.init(2)))
    }

    @Test func connectingEndsTheDiscovery() {
        var machine = DiscoveryStateMachine()
        _ = machine.startDiscovery(at: start)
        machine.connected()
        #expect(machine.state == .idle)
        #expect(machine.latest == .init(1))
    }

    @Test func readersFromOlderDiscoveriesAreStale() {
        var machine = DiscoveryStateMachine()
        #expect(machine.checkConnect(readerFrom: .init(1)) == .noDiscovery)
        _ = machine.startDiscovery(at: start)
        #expect(machine.checkConnect(readerFrom: .init(1)) == .fresh)
        _ = machine.cancelDiscovery()
        _ = machine.startDiscovery(at: start)
        #expect(machine.checkConnect(readerFrom: .init(1)) == .stale(latest: .init(2)))
        #expect(machine.checkConnect(readerFrom: .init(2)) == .fresh)
        #expect(machine.checkConnect(readerFrom: .init(9)) == .unknownDiscovery)
    }

    @Test func floodsAreRateLimitedAndRecover() {
        var machine = DiscoveryStateMachine(burst: 3, perSecond: 2)
        for _ in 0..<3 {
            guard case .start = machine.startDiscovery(at: start) else {
                Issue.record("the burst should be allowed")
                return
            }
            _ = machine.cancelDiscovery()
        }
        guard case .refuseRateLimited(let retryAfter) = machine.startDiscovery(at: start) else {
            Issue.record("the fourth discovery in the same instant should be limited")
            return
        }
        #expect(retryAfter > .zero && retryAfter <= .milliseconds(500))
        // A refused attempt does not start anything or change the latest discovery.
        #expect(machine.latest == .init(3))
        guard case .start(let id) = machine.startDiscovery(at: start.advanced(by: retryAfter)) else {
            Issue.record("after the advertised wait a discovery should start")
            return
        }
        #expect(id == .init(4))
    }
}

@Suite struct TokenBucketTests {
    @Test func refillsAtTheConfiguredRateUpToCapacity() {
        let t0 = ContinuousClock.now
        var bucket = TokenBucket(capacity: 2, refillPerSecond: 10)
        #expect(bucket.take(at: t0) == .granted)
        #expect(bucket.take(at: t0) == .granted)
        #expect(bucket.take(at: t0) == .denied(retryAfter: .milliseconds(100)))
        #expect(bucket.take(at: t0.advanced(by: .milliseconds(100))) == .granted)
        // An hour idle refills to capacity, not beyond.
        let later = t0.advanced(by: .seconds(3600))
        #expect(bucket.take(at: later) == .granted)
        #expect(bucket.take(at: later) == .granted)
        #expect(bucket.take(at: later) != .granted)
    }
}
