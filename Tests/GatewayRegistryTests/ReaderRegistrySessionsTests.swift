import GatewayDomain
@testable import GatewayRegistry
import GatewayWire
import Testing

/// Sessions: event streams and their buffer, connections, detach and lease.
@Suite("Reader registry: sessions")
struct ReaderRegistrySessionsTests {
    let a = RegistryFixture.session("A")
    let tokenA = RegistryFixture.token("A")

    @Test func eventsWithoutAStreamAreBufferedUpTo256WithTheirSequenceNumbers() {
        var fixture = RegistryFixture()
        fixture.attach()
        fixture.open("A")
        fixture.claim("A", generation: 1)
        for _ in 1...300 { #expect(fixture.registry.updateProgress(fixture.reader, progress: 0.5, nowUnixMs: 1) == nil) }
        let buffered = fixture.session("A")?.bufferedEvents ?? []
        #expect(buffered.count == ReaderRegistry.bufferedEventLimit)
        #expect(buffered.first?.sequence == 45)
        #expect(buffered.last?.sequence == 300)

        let subscription = fixture.subscribe("A")
        #expect(subscription.buffered == buffered)
        #expect(subscription.firstSequence == 45)
        #expect(subscription.replaced == nil)
        #expect(fixture.session("A")?.bufferedEvents.isEmpty == true)
        guard case .sendEvent(let next, subscription.stream)? = fixture.registry.updateProgress(fixture.reader, progress: 1, nowUnixMs: 2) else {
            Issue.record("the live stream does not get the next event")
            return
        }
        #expect(next.sequence == 301)
    }

    @Test func aNewSubscriptionReplacesTheStreamAndAnEndedStreamBuffersAgain() {
        var fixture = RegistryFixture()
        fixture.open("A")
        let first = fixture.subscribe("A")
        #expect(first.firstSequence == 1)
        let second = fixture.subscribe("A", connection: 2)
        #expect(second.replaced == first.stream)
        #expect(second.stream != first.stream)
        // The replaced stream's late end changes nothing.
        fixture.registry.subscriptionEnded(tokenA, stream: first.stream)
        #expect(fixture.session("A")?.stream == second.stream)
        fixture.registry.subscriptionEnded(tokenA, stream: second.stream)
        #expect(fixture.session("A")?.stream == nil)
        #expect(fixture.registry.sessionSubscribed("tok_nobody", connection: 1) == nil)
    }

    @Test func anEventItsFinishedStreamCouldNotTakeIsBufferedInSequenceOrder() {
        var fixture = RegistryFixture()
        fixture.attach()
        fixture.open("A")
        let stream = fixture.subscribe("A").stream
        fixture.claim("A", generation: 1)
        guard let early = fixture.registry.updateProgress(fixture.reader, progress: 0.1, nowUnixMs: 1)?.notice,
              let late = fixture.registry.updateProgress(fixture.reader, progress: 0.2, nowUnixMs: 2)?.notice
        else { Issue.record("not sent"); return }
        fixture.registry.eventUndelivered(late, stream: stream, session: a)
        fixture.registry.eventUndelivered(early, stream: stream, session: a)
        #expect(fixture.session("A")?.stream == nil)
        #expect(fixture.session("A")?.bufferedEvents.map(\.sequence) == [early.sequence, late.sequence])
        #expect(fixture.subscribe("A").firstSequence == early.sequence)
    }

    @Test func aSessionIsDetachedWhenItsLastConnectionClosesAndOnlyItsSessionsAreTouched() {
        var fixture = RegistryFixture()
        fixture.open("A", connection: 1)
        fixture.open("B", connection: 3)
        // A second connection carries the session once it adopted it from its row.
        fixture.adopt("A", epoch: 2, connection: 2)
        #expect(fixture.session("A")?.connections == [1, 2])
        fixture.registry.connectionClosed(1, now: fixture.start)
        #expect(fixture.session("A")?.detachedSince == nil)
        fixture.registry.connectionClosed(2, now: fixture.start + .seconds(1))
        #expect(fixture.session("A")?.detachedSince == fixture.start + .seconds(1))
        #expect(fixture.session("B")?.detachedSince == nil)
        #expect(fixture.session("B")?.connections == [3])
    }

    @Test func aDetachedSessionIsUsableWithinItsLeaseAndGoneAfter() {
        var fixture = RegistryFixture()
        fixture.open("A", connection: 1)
        fixture.open("B", connection: 2)
        fixture.registry.connectionClosed(1, now: fixture.start)
        let sweep = fixture.registry.leaseSweep(now: fixture.start + fixture.lease, lease: fixture.lease)
        #expect(sweep.attached == [SessionEpoch(id: RegistryFixture.session("B"), epoch: 1)])
        #expect(sweep.expired == [tokenA])
        #expect(fixture.registry.leaseSweep(now: fixture.start + fixture.lease - .milliseconds(1), lease: fixture.lease).expired.isEmpty)
        #expect(fixture.registry.sessionUsed(tokenA, connection: 3, now: fixture.start + fixture.lease, nowUnixMs: 9, lease: fixture.lease) == nil)
        #expect(fixture.relay("A", connection: 3, after: fixture.lease) == .refused(.sessionUnknown))
        // Within the lease, a new connection is not answered from memory: the row is adopted.
        #expect(fixture.registry.sessionUsed(tokenA, connection: 3, now: fixture.start + fixture.lease - .milliseconds(1), nowUnixMs: 9, lease: fixture.lease) == nil)
        #expect(fixture.relay("A", connection: 3, after: fixture.lease - .milliseconds(1)) == .unknownSession)
        let resumed = fixture.adopt("A", epoch: 2, connection: 3, nowUnixMs: 9).session
        #expect(resumed.detachedSince == nil)
        #expect(resumed.lastSeenUnixMs == 9)
        #expect(resumed.connections == [3])
        #expect(fixture.registry.sessionUsed(tokenA, connection: 3, now: fixture.start + fixture.lease, nowUnixMs: 10, lease: fixture.lease)?.epoch == 2)
    }

    @Test func aDrainDetachesEverySession() {
        var fixture = RegistryFixture()
        fixture.open("A", connection: 1)
        fixture.open("B", connection: 2)
        #expect(Set(fixture.registry.allSessionsDetached(now: fixture.start)) == [a, RegistryFixture.session("B")])
        #expect(fixture.session("A")?.connections.isEmpty == true)
        #expect(fixture.session("B")?.detachedSince == fixture.start)
        // A connection closing afterwards finds nothing to do.
        fixture.registry.connectionClosed(1, now: fixture.start + .seconds(5))
        #expect(fixture.session("A")?.detachedSince == fixture.start)
    }

    @Test func anEndedSessionIsForgottenEverywhereAndItsStreamEnds() {
        var fixture = RegistryFixture()
        fixture.attach()
        fixture.open("A")
        let stream = fixture.subscribe("A").stream
        fixture.claim("A", generation: 1)
        let ended = fixture.registry.sessionEnded(tokenA)
        #expect(ended?.session.id == a)
        #expect(ended?.actions == [.endStream(stream, .sessionEnded)])
        #expect(fixture.registry.session(id: a) == nil)
        #expect(fixture.registry.owner(of: fixture.reader) == nil)
        #expect(fixture.registry.token(of: a) == nil)
        #expect(fixture.registry.sessionEnded(tokenA) == nil)
        #expect(fixture.relay("A") == .unknownSession)
    }

    @Test func aRelayNeedsAnOwnedReader() {
        var fixture = RegistryFixture()
        fixture.open("A")
        #expect(fixture.relay("A") == .refused(.notConnected))
        #expect(fixture.relay("Z") == .unknownSession)
        #expect(fixture.registry.takePendingRefusal(of: a) == nil)
    }

    @Test func theAdminListingIsTheAccountsSessionsOldestFirst() {
        var fixture = RegistryFixture()
        fixture.open("A")
        var other = RegistrySession(
            id: SessionID("ses_O"), token: "tok_O", accountID: "acct_2", locationScope: nil, posDeviceID: "p", lane: LaneLabel("O"),
            discovery: DiscoveryStateMachine(), connection: 1, nowUnixMs: 0
        )
        fixture.registry.sessionOpened(other)
        other = RegistrySession(
            id: SessionID("ses_E"), token: "tok_E", accountID: "acct_1", locationScope: "loc_1", posDeviceID: "p", lane: LaneLabel("E"),
            discovery: DiscoveryStateMachine(), connection: 1, nowUnixMs: 500
        )
        fixture.registry.sessionOpened(other)
        #expect(fixture.registry.sessions(of: "acct_1", location: nil).map(\.id) == [SessionID("ses_E"), a])
        #expect(fixture.registry.sessions(of: "acct_1", location: "loc_1").map(\.id) == [SessionID("ses_E")])
    }
}
