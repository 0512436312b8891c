import GatewayDomain
@testable import GatewayRegistry
import Testing

/// Discovery waiters: one per session, superseded or cancelled at once.
@Suite("Reader registry: discovery waiters")
struct ReaderRegistryDiscoveryTests {
    let token = RegistryFixture.token("A")

    @Test func aNewDiscoveryTakesTheWaiterOfTheOneItSupersedes() {
        var fixture = RegistryFixture()
        fixture.open("A")
        guard case .start(let first, nil)? = fixture.registry.discoveryStarted(token, now: fixture.start)?.result else { Issue.record("not started"); return }
        #expect(fixture.registry.discoveryWaiting(token, first) == true)
        let second = fixture.registry.discoveryStarted(token, now: fixture.start)
        #expect(second?.supersededWaiter == first)
        #expect(fixture.registry.discoveryWaiters[token] == nil)
        guard case .start(let newer, first)? = second?.result else { Issue.record("not superseding"); return }
        // The store's late answer for the first one: superseded, and no waiter to resume.
        #expect(fixture.registry.takeDiscoveryWaiter(token, first) == false)
        #expect(fixture.registry.discoveryAnswered(token, first, readers: []) == .superseded(by: newer))
        #expect(fixture.registry.discoveryWaiting(token, newer) == true)
        #expect(fixture.registry.takeDiscoveryWaiter(token, newer) == true)
        #expect(fixture.registry.discoveryAnswered(token, newer, readers: [ReaderID("tmr_1")]) == .answer)
        #expect(fixture.session("A")?.discovered == ["tmr_1"])
    }

    @Test func aCancelledDiscoveryHandsBackItsWaiterAndCannotWaitAgain() {
        var fixture = RegistryFixture()
        fixture.open("A")
        guard case .start(let id, _)? = fixture.registry.discoveryStarted(token, now: fixture.start)?.result else { Issue.record("not started"); return }
        #expect(fixture.registry.discoveryWaiting(token, id) == true)
        #expect(fixture.registry.discoveryCancelled(token, named: DiscoveryStateMachine.DiscoveryID(id.value + 1)) == nil)
        #expect(fixture.registry.discoveryCancelled(token, named: nil) == id)
        #expect(fixture.registry.discoveryCancelled(token, named: nil) == nil)
        #expect(fixture.registry.discoveryWaiting(token, id) == false)
        #expect(fixture.registry.discoveryAnswered(token, id, readers: []) == .cancelled)
    }

    @Test func aFailedListingAbandonsTheDiscoveryAndTheRateLimitHolds() {
        var fixture = RegistryFixture()
        fixture.open("A")
        guard case .start(let id, _)? = fixture.registry.discoveryStarted(token, now: fixture.start)?.result else { Issue.record("not started"); return }
        fixture.registry.discoveryFailed(token, id)
        #expect(fixture.session("A")?.discovery.state == .idle)
        #expect(fixture.session("A")?.discovery.answered == nil)
        _ = fixture.registry.discoveryStarted(token, now: fixture.start)
        guard case .refuseRateLimited? = fixture.registry.discoveryStarted(token, now: fixture.start)?.result else {
            Issue.record("a third discovery in the same instant is not refused (burst 2)")
            return
        }
        #expect(fixture.registry.discoveryStarted("tok_nobody", now: fixture.start) == nil)
    }
}
