import GatewayDomain
@testable import GatewayRegistry
import Testing

/// A cancel sent after a collect finds the collect wherever it is on its way to the reader.
@Suite("ReaderRegistry: a cancel and the collect it follows")
struct ReaderRegistryCollectOrderTests {
    /// A session owning the fixture's reader, its link here.
    static func owning() -> (RegistryFixture, LinkID) {
        var fixture = RegistryFixture()
        fixture.open("a")
        let link = fixture.attach()
        fixture.claim("a", generation: 1)
        return (fixture, link)
    }

    @Test func aCancelBeforeTheCollectReachesTheLinkEndsItUnsent() throws {
        var (fixture, link) = Self.owning()
        let arrivedticket = fixture.registry.collectArrived(RegistryFixture.token("a"), connection: 1)
        let ticket = try #require(arrivedticket)
        let decision1 = fixture.cancelCollect("a")
        #expect(decision1 == .cancelledBeforeLink)
        // A second cancel changes nothing.
        let decision2 = fixture.cancelCollect("a")
        #expect(decision2 == .cancelledBeforeLink)
        let decision4 = fixture.registry.collectDispatched(ticket, to: fixture.reader, deadline: fixture.start + .seconds(10))
        #expect(decision4 == .cancelled)
        // Nothing was registered on the link: nothing to time out or to answer.
        #expect(fixture.registry.links[fixture.reader]?.pending.isEmpty == true)
        #expect(fixture.registry.links[fixture.reader]?.id == link)
        fixture.registry.collectEnded(ticket)
        #expect(fixture.session("a")?.collect == nil)
    }

    @Test func aCancelWhileTheCollectIsWrittenIsWrittenRightAfterIt() throws {
        var (fixture, link) = Self.owning()
        let arrivedticket = fixture.registry.collectArrived(RegistryFixture.token("a"), connection: 1)
        let ticket = try #require(arrivedticket)
        let dispatched = fixture.registry.collectDispatched(ticket, to: fixture.reader, deadline: fixture.start + .seconds(10))
        guard case .registered(let collect) = dispatched else {
            Issue.record("expected the collect registered, got \(dispatched)")
            return
        }
        #expect(collect.link == link)
        guard case .afterCollect(let cancel, let owned) = fixture.cancelCollect("a") else {
            Issue.record("expected the cancel to wait for the collect")
            return
        }
        #expect(owned.reader == fixture.reader)
        #expect(cancel.command > collect.command)
        // The collect's sender writes it, then the cancel that waited for it.
        let decision5 = fixture.registry.collectSent(ticket)
        #expect(decision5 == cancel)
        let decision6 = fixture.registry.collectSent(ticket)
        #expect(decision6 == nil)
        #expect(fixture.registry.links[fixture.reader]?.pending.keys.sorted() == [collect.command, cancel.command])
    }

    @Test func aCancelAfterTheCollectWasWrittenGoesDownTheLinkAsAnyCommand() throws {
        var (fixture, _) = Self.owning()
        let arrivedticket = fixture.registry.collectArrived(RegistryFixture.token("a"), connection: 1)
        let ticket = try #require(arrivedticket)
        guard case .registered = fixture.registry.collectDispatched(ticket, to: fixture.reader, deadline: fixture.start + .seconds(10)) else {
            Issue.record("expected the collect registered")
            return
        }
        let decision7 = fixture.registry.collectSent(ticket)
        #expect(decision7 == nil)
        guard case .local = fixture.cancelCollect("a") else {
            Issue.record("expected the cancel relayed down the link")
            return
        }
    }

    @Test func aCancelWithNoCollectAndAnEndedCollectsTicketChangeNothingLater() throws {
        var (fixture, _) = Self.owning()
        guard case .local = fixture.cancelCollect("a") else {
            Issue.record("a cancel with no collect is relayed as any command")
            return
        }
        let arrivedfirst = fixture.registry.collectArrived(RegistryFixture.token("a"), connection: 1)
        let first = try #require(arrivedfirst)
        fixture.registry.collectEnded(first)
        let arrivedsecond = fixture.registry.collectArrived(RegistryFixture.token("a"), connection: 1)
        let second = try #require(arrivedsecond)
        // The first collect's late events do not touch the second.
        fixture.registry.collectEnded(first)
        #expect(fixture.session("a")?.collect?.number == second.number)
        let decision8 = fixture.registry.collectLeaving(first)
        #expect(decision8)
        #expect(fixture.session("a")?.collect?.phase == .arriving)
        let decision3 = fixture.cancelCollect("a")
        #expect(decision3 == .cancelledBeforeLink)
        let decision9 = fixture.registry.collectLeaving(second)
        #expect(decision9 == false)
    }

    @Test func aCollectOnAConnectionTheSessionDoesNotUseHasNoTicket() {
        var (fixture, _) = Self.owning()
        let decision10 = fixture.registry.collectArrived(RegistryFixture.token("a"), connection: 2)
        #expect(decision10 == nil)
        let decision11 = fixture.registry.collectArrived("tok_nobody", connection: 1)
        #expect(decision11 == nil)
    }
}
