import GatewayDomain
@testable import GatewayRegistry
import GatewayWire
import Testing

/// A store that went back in time (an asynchronous standby promoted without the old primary's
/// last transactions): found by comparing a reader's row with what the replica remembers, and
/// told to the sessions whose ownership vanished.
@Suite("Reader registry: a store that went back in time")
struct StoreRollbackTests {
    let reader = ReaderID("tmr_1")
    let a = SessionID("ses_A")
    let b = SessionID("ses_B")

    func row(_ generation: Int64, owner: SessionID?, epoch: Int64 = 1, node: String? = "me") -> OwnershipRow {
        OwnershipRow(reader: reader, generation: OwnershipGeneration(generation), session: owner, laneLabel: owner.map { "Lane \($0.rawValue)" }, epoch: LinkEpoch(epoch), node: node)
    }

    func holder(_ session: SessionID, _ generation: Int64) -> StoreRollback.Holder {
        StoreRollback.Holder(session: session, generation: OwnershipGeneration(generation))
    }

    @Test func aRowAtOrPastEverythingKnownIsNoRollback() {
        let memory = StoreRollback.Memory(linkEpoch: LinkEpoch(2), linkKnownGeneration: OwnershipGeneration(5), holders: [holder(a, 5)])
        #expect(StoreRollback.check(row(5, owner: a, epoch: 2), against: memory) == nil)
        // A later change made elsewhere (a synchronous failover loses nothing: rows are only ahead).
        #expect(StoreRollback.check(row(7, owner: b, epoch: 3, node: "other"), against: memory) == nil)
        // No link and no session here: nothing to compare with.
        #expect(StoreRollback.check(row(0, owner: nil), against: StoreRollback.Memory(linkEpoch: nil)) == nil)
    }

    @Test func aGrantThatVanishedIsFoundWithTheSessionToTell() throws {
        // A took the reader at 6; the promoted store still shows B at 5.
        let memory = StoreRollback.Memory(linkEpoch: LinkEpoch(2), linkKnownGeneration: OwnershipGeneration(6), holders: [holder(a, 6)])
        let rollback = try #require(StoreRollback.check(row(5, owner: b, epoch: 2), against: memory))
        #expect(rollback.floor == OwnershipGeneration(6))
        #expect(rollback.floorHolder == a)
        #expect(rollback.vanished == [holder(a, 6)])
        #expect(rollback.link == nil)
        #expect(rollback.repairedGeneration == OwnershipGeneration(7))
    }

    @Test func theSameGenerationUnderAnotherOwnerIsARollback() throws {
        // The store lost A's grant of 6 and then handed 6 to B: the one case a floor alone misses.
        let memory = StoreRollback.Memory(linkEpoch: nil, holders: [holder(a, 6)])
        let rollback = try #require(StoreRollback.check(row(6, owner: b), against: memory))
        #expect(rollback.vanished == [holder(a, 6)])
        #expect(rollback.repairedGeneration == OwnershipGeneration(7))
    }

    @Test func aLinkTheRowLostIsWrittenBack() throws {
        // The attach of epoch 3 here is gone: the row shows epoch 2 (the reader offline or elsewhere).
        let memory = StoreRollback.Memory(linkEpoch: LinkEpoch(3), linkKnownGeneration: OwnershipGeneration(4))
        let rollback = try #require(StoreRollback.check(row(4, owner: nil, epoch: 2, node: nil), against: memory))
        #expect(rollback.link == LinkEpoch(3))
        #expect(rollback.vanished.isEmpty)
        #expect(rollback.floorHolder == nil)
    }

    @Test func aGenerationToldToTheReaderIsAFloorWithoutASessionHere() throws {
        // The link here was told generation 9 (granted on another replica); the row is at 8.
        let memory = StoreRollback.Memory(linkEpoch: LinkEpoch(1), linkKnownGeneration: OwnershipGeneration(9))
        let rollback = try #require(StoreRollback.check(row(8, owner: a), against: memory))
        #expect(rollback.floor == OwnershipGeneration(9))
        #expect(rollback.vanished.isEmpty)
        #expect(rollback.repairedGeneration == OwnershipGeneration(10))
    }

    @Test func theRegistryTellsTheVanishedSessionOnceAndFailsItsNextCommand() throws {
        var fixture = RegistryFixture()
        fixture.attach()
        fixture.open("A")
        _ = fixture.subscribe("A")
        fixture.claim("A", generation: 6)
        let rollback = try #require(fixture.registry.storeRollback(of: row(5, owner: nil)))
        let (told, actions) = fixture.registry.storeRolledBack(rollback, nowUnixMs: 9_000)
        #expect(told == 1)
        let event = try #require(actions.compactMap(\.disconnected).first)
        #expect(event.reason == .storeRolledBack)
        #expect(fixture.session("A")?.reader == nil)
        #expect(fixture.session("A")?.pendingRefusal == .notConnected)
        // Told once: a second repair of the same rollback finds nobody holding.
        #expect(fixture.registry.storeRolledBack(rollback, nowUnixMs: 9_001).told == 0)
        // The repaired row (no owner, above every generation known) is no rollback.
        #expect(fixture.registry.storeRollback(of: row(rollback.repairedGeneration.rawValue, owner: nil)) == nil)
    }

    @Test func aSessionThatClaimedAgainMeanwhileIsNotTold() throws {
        var fixture = RegistryFixture()
        fixture.attach()
        fixture.open("A")
        fixture.claim("A", generation: 6)
        let rollback = try #require(fixture.registry.storeRollback(of: row(5, owner: nil)))
        fixture.claim("A", generation: 8)
        #expect(fixture.registry.storeRolledBack(rollback, nowUnixMs: 9_000).told == 0)
        #expect(fixture.session("A")?.reader == reader)
    }
}
