@testable import GatewayDomain
import Testing

@Suite struct DiscoveryStateMachineTests {
    let start = ContinuousClock.now

    @Test func aDiscoveryIsCompleteWhenItAnswers() {
        var machine = DiscoveryStateMachine()
        #expect(machine.startDiscovery(at: start) == .start(.init(1), superseding: nil))
        #expect(machine.state == .running(.init(1)))
        #expect(machine.answerReady(.init(1)) == .answer)
        #expect(machine.state == .idle)
        #expect(machine.answered == .init(1))
        // Nothing is left to cancel, and the answer stays usable.
        #expect(machine.cancelDiscovery() == .nothingRunning)
        #expect(machine.checkConnect(readerFrom: .init(1)) == .fresh)
        // The next discovery needs no cancel first.
        #expect(machine.startDiscovery(at: start) == .start(.init(2), superseding: nil))
    }

    @Test func aNewDiscoverySupersedesOneStillWaitingForItsAnswer() {
        var machine = DiscoveryStateMachine()
        _ = machine.startDiscovery(at: start)
        #expect(machine.startDiscovery(at: start) == .start(.init(2), superseding: .init(1)))
        // The superseded one's late answer is not delivered; the newer one's is.
        #expect(machine.answerReady(.init(1)) == .superseded(by: .init(2)))
        #expect(machine.state == .running(.init(2)))
        #expect(machine.answerReady(.init(2)) == .answer)
        #expect(machine.answered == .init(2))
    }

    @Test func cancelEndsOnlyADiscoveryStillWaiting() {
        var machine = DiscoveryStateMachine()
        _ = machine.startDiscovery(at: start)
        // A discovery named but not the waiting one is left alone.
        #expect(machine.cancelDiscovery(.init(7)) == .nothingRunning)
        #expect(machine.cancelDiscovery(.init(1)) == .cancelled(.init(1)))
        #expect(machine.state == .idle)
        #expect(machine.answerReady(.init(1)) == .cancelled)
        #expect(machine.answered == nil)
        #expect(machine.cancelDiscovery() == .nothingRunning)
        // A cancelled discovery never answered: no reader comes from it.
        #expect(machine.checkConnect(readerFrom: .init(1)) == .notAnswered(.init(1)))
        _ = machine.startDiscovery(at: start)
        #expect(machine.cancelDiscovery() == .cancelled(.init(2)))
    }

    @Test func aStoreFailureEndsTheDiscoveryUnanswered() {
        var machine = DiscoveryStateMachine()
        _ = machine.startDiscovery(at: start)
        machine.abandon(.init(1))
        #expect(machine.state == .idle)
        #expect(machine.checkConnect(readerFrom: .init(1)) == .notAnswered(.init(1)))
        // Abandoning a discovery that no longer runs changes nothing.
        _ = machine.startDiscovery(at: start)
        machine.abandon(.init(1))
        #expect(machine.state == .running(.init(2)))
    }

    @Test func readersFromSupersededDiscoveriesAreStale() {
        var machine = DiscoveryStateMachine()
        #expect(machine.checkConnect(readerFrom: .init(1)) == .noDiscovery)
        _ = machine.startDiscovery(at: start)
        #expect(machine.checkConnect(readerFrom: .init(1)) == .notAnswered(.init(1)))
        _ = machine.answerReady(.init(1))
        #expect(machine.checkConnect(readerFrom: .init(1)) == .fresh)
        // A newer discovery makes the answered one stale at once, even before it answers.
        _ = machine.startDiscovery(at: start)
        #expect(machine.checkConnect(readerFrom: .init(1)) == .stale(latest: .init(2)))
        #expect(machine.checkConnect(readerFrom: .init(2)) == .notAnswered(.init(2)))
        _ = machine.answerReady(.init(2))
        #expect(machine.checkConnect(readerFrom: .init(1)) == .stale(latest: .init(2)))
        #expect(machine.checkConnect(readerFrom: .init(2)) == .fresh)
        #expect(machine.checkConnect(readerFrom: .init(9)) == .unknownDiscovery)
    }

    @Test func floodsAreRateLimitedAndRecover() {
        var machine = DiscoveryStateMachine(burst: 3, perSecond: 2)
        for _ in 0..<3 {
            guard case .start(let id, _) = machine.startDiscovery(at: start) else {
                Issue.record("the burst should be allowed")
                return
            }
            _ = machine.answerReady(id)
        }
        guard case .refuseRateLimited(let retryAfter) = machine.startDiscovery(at: start) else {
            Issue.record("the fourth discovery in the same instant should be limited")
            return
        }
        #expect(retryAfter > .zero && retryAfter <= .milliseconds(500))
        // A refused attempt does not start anything or change the latest discovery.
        #expect(machine.latest == .init(3))
        #expect(machine.checkConnect(readerFrom: .init(3)) == .fresh)
        guard case .start(let id, _) = machine.startDiscovery(at: start.advanced(by: retryAfter)) else {
            Issue.record("after the advertised wait a discovery should start")
            return
        }
        #expect(id == .init(4))
    }

    @Test func aRefusedDiscoveryLeavesTheWaitingOneRunning() {
        var machine = DiscoveryStateMachine(burst: 1, perSecond: 1)
        _ = machine.startDiscovery(at: start)
        guard case .refuseRateLimited = machine.startDiscovery(at: start) else {
            Issue.record("the second discovery in the same instant should be limited")
            return
        }
        #expect(machine.state == .running(.init(1)))
        #expect(machine.answerReady(.init(1)) == .answer)
    }
}

@Suite struct DiscoveryResumedOnAnotherReplicaTests {
    let start = ContinuousClock.now

    @Test func theAnsweredDiscoveryStaysConnectableAndOlderOnesStale() {
        let machine = DiscoveryStateMachine(resumingAfter: .init(3))
        #expect(machine.state == .idle)
        #expect(machine.latest == .init(3))
        #expect(machine.checkConnect(readerFrom: .init(3)) == .fresh)
        #expect(machine.checkConnect(readerFrom: .init(2)) == .stale(latest: .init(3)))
        #expect(machine.checkConnect(readerFrom: .init(4)) == .unknownDiscovery)
    }

    @Test func theNextDiscoveryIsNumberedAfterTheResumedOne() {
        var machine = DiscoveryStateMachine(resumingAfter: .init(3))
        #expect(machine.startDiscovery(at: start) == .start(.init(4), superseding: nil))
        // Until it answers, the resumed discovery's readers are superseded.
        #expect(machine.checkConnect(readerFrom: .init(3)) == .stale(latest: .init(4)))
        #expect(machine.answerReady(.init(4)) == .answer)
        #expect(machine.checkConnect(readerFrom: .init(4)) == .fresh)
    }

    @Test func aSessionThatNeverDiscoveredStillMustDiscover() {
        let machine = DiscoveryStateMachine(resumingAfter: nil)
        #expect(machine.latest == nil)
        #expect(machine.checkConnect(readerFrom: .init(1)) == .noDiscovery)
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
