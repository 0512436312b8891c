import GatewayDomain
@testable import GatewayRegistry
import GatewayWire
import Testing

/// Rows and notices from the store (changes made on other replicas), and relays fenced
/// by generation and link epoch.
@Suite("Reader registry: changes made elsewhere, fencing")
struct ReaderRegistryClusterTests {
    let a = RegistryFixture.session("A")
    let me = "node-a"

    func row(_ fixture: RegistryFixture, generation: Int64, owner: SessionID?, lane: String? = nil, epoch: Int64 = 1, node: String?) -> OwnershipRow {
        OwnershipRow(reader: fixture.reader, generation: OwnershipGeneration(generation), session: owner, laneLabel: lane, epoch: LinkEpoch(epoch), node: node)
    }

    @Test func aRelayFromAnOlderGenerationThanTheLinkHasSeenIsStaleUntilTheSessionIsTold() {
        var fixture = RegistryFixture()
        let link = fixture.attach()
        fixture.open("A")
        fixture.claim("A", generation: 1)
        let other = SessionID("ses_elsewhere")
        let changed = fixture.registry.ownershipChanged(row(fixture, generation: 2, owner: other, lane: "Lane X", node: me), me: me)
        #expect(changed.actions == [.tellOwner(link, lane: "Lane X", generation: OwnershipGeneration(2))])
        #expect(changed.linkDropped == false)
        #expect(changed.displaced == [ReaderRegistry.Displaced(session: a, reader: fixture.reader, generation: OwnershipGeneration(1), rebooting: false, taken: true)])

        // Before the session hears of it, its relay is fenced at the link.
        guard case .stale(let owned) = fixture.relay("A") else { Issue.record("not fenced"); return }
        #expect(owned.generation == OwnershipGeneration(1))
        #expect(fixture.registry.pendingCommandCount == 0)

        let told = fixture.registry.sessionDisplaced(changed.displaced[0], reason: .replaced, takenByLane: "Lane X", takenByPosDeviceID: "pos-X", nowUnixMs: 5)
        #expect(told == nil) // no stream: buffered
        guard case .disconnected(let disconnected)? = fixture.session("A")?.bufferedEvents.last?.message.event else { Issue.record("not told"); return }
        #expect(disconnected.takenByLaneLabel == "Lane X")
        #expect(disconnected.takenByPosDeviceID == "pos-X")
        #expect(fixture.relay("A") == .refused(.refusal(.connectedToAnotherSession)))
        // Told once: a second report changes nothing.
        #expect(fixture.registry.sessionDisplaced(changed.displaced[0], reason: .replaced, takenByLane: nil, takenByPosDeviceID: nil, nowUnixMs: 6) == nil)
        #expect(fixture.session("A")?.bufferedEvents.count == 1)
    }

    @Test func aCommandInterruptedByATakeoverMadeElsewhereFailsOnlyAfterItsSessionIsTold() throws {
        var fixture = RegistryFixture()
        let link = fixture.attach()
        fixture.open("A")
        fixture.open("B", connection: 2)
        fixture.claim("A", generation: 1)
        var relayed: CommandKey?
        if case .local(let key, _) = fixture.relay("A") { relayed = key }
        let key = try #require(relayed, "A's display was not relayed to the link here")
        let other = SessionID("ses_elsewhere")
        let changed = fixture.registry.ownershipChanged(row(fixture, generation: 2, owner: other, lane: "Lane X", node: me), me: me)
        // No failure among the actions performed at once: A is told first, then its command fails.
        #expect(changed.actions == [.tellOwner(link, lane: "Lane X", generation: OwnershipGeneration(2))])
        let displaced = try #require(changed.displaced.first)
        #expect(displaced.session == a)
        #expect(displaced.interrupted == [key])
        #expect(fixture.registry.pendingCommandCount == 0)
    }

    @Test func aLossWithoutHistoryReadsAsLostAndAsTheRebootWhenTheReaderWasToldToReboot() {
        var fixture = RegistryFixture()
        let link = fixture.attach()
        fixture.open("A")
        fixture.open("B", connection: 2)
        fixture.claim("A", generation: 1)
        guard case .local = fixture.relay("A", reboot: true) else { Issue.record("not relayed"); return }
        _ = fixture.registry.linkEnded(fixture.reader, link: link)
        let changed = fixture.registry.ownershipChanged(row(fixture, generation: 2, owner: nil, node: nil), me: me)
        #expect(changed.displaced.first?.rebooting == true)
        _ = fixture.registry.sessionDisplaced(changed.displaced[0], reason: .readerLost, takenByLane: nil, takenByPosDeviceID: nil, nowUnixMs: 5)
        guard case .disconnected(let rebooted)? = fixture.session("A")?.bufferedEvents.last?.message.event else { Issue.record("not told"); return }
        #expect(rebooted.reason == .rebootRequested)
        #expect(fixture.relay("A") == .refused(.refusal(.readerOffline)))

        // Without a reboot and without a history row: lost.
        fixture.registry.rebootReported(fixture.reader)
        fixture.claim("B", generation: 3)
        let lost = fixture.registry.ownershipChanged(row(fixture, generation: 4, owner: nil, node: nil), me: me)
        _ = fixture.registry.sessionDisplaced(lost.displaced[0], reason: nil, takenByLane: "ignored", takenByPosDeviceID: nil, nowUnixMs: 6)
        guard case .disconnected(let disconnected)? = fixture.session("B")?.bufferedEvents.last?.message.event else { Issue.record("not told"); return }
        #expect(disconnected.reason == .readerLost)
        #expect(disconnected.takenByLaneLabel == "")
    }

    @Test func aLinkSupersededByANewerEpochElsewhereIsClosedAndItsCommandsFail() {
        var fixture = RegistryFixture()
        let link = fixture.attach()
        fixture.open("A")
        fixture.claim("A", generation: 1)
        guard case .local(let key, _) = fixture.relay("A") else { Issue.record("not relayed"); return }
        let changed = fixture.registry.ownershipChanged(row(fixture, generation: 1, owner: a, epoch: 2, node: "node-b"), me: me)
        #expect(changed.actions == [.failCommand(key, .linkMovedAway), .closeLink(link, .replaced)])
        #expect(changed.linkDropped)
        #expect(changed.displaced.isEmpty)
        #expect(fixture.registry.links[fixture.reader] == nil)
        // The dropped link's own end then records nothing.
        #expect(fixture.registry.linkEnded(fixture.reader, link: link) == nil)
    }

    @Test func aLinkWhoseEpochTheReaperDetachedIsSuperseded() {
        #expect(ReaderRegistry.isSuperseded(LinkEpoch(1), here: me, by: LinkEpoch(1), on: nil))
        #expect(ReaderRegistry.isSuperseded(LinkEpoch(1), here: me, by: LinkEpoch(2), on: me))
        #expect(!ReaderRegistry.isSuperseded(LinkEpoch(2), here: me, by: LinkEpoch(1), on: "node-b"))
        #expect(!ReaderRegistry.isSuperseded(LinkEpoch(1), here: me, by: LinkEpoch(1), on: me))
    }

    @Test func aNewerOwnerOnTheSameLinkFailsOtherSessionsCommandsAndCancelsACollect() {
        var fixture = RegistryFixture()
        let link = fixture.attach()
        fixture.open("A")
        fixture.claim("A", generation: 1)
        let collect = fixture.registry.commandDispatched(a, to: fixture.reader, isCollect: true, reboot: false, deadline: fixture.start + .seconds(30))!
        let other = SessionID("ses_elsewhere")
        let mine = fixture.registry.commandDispatched(other, to: fixture.reader, isCollect: false, reboot: false, deadline: fixture.start + .seconds(30))!
        // A command relayed here by a session on another replica (its replica tells it).
        let relayed = fixture.registry.commandDispatched(SessionID("ses_remote"), to: fixture.reader, isCollect: false, reboot: false, deadline: fixture.start + .seconds(30))!
        let changed = fixture.registry.ownershipChanged(row(fixture, generation: 2, owner: other, lane: "Lane X", node: me), me: me)
        // A's collect fails once A is told (it is a session here): it rides with A's displacement.
        #expect(changed.actions == [
            .failCommand(relayed, .refusal(.connectedToAnotherSession)),
            .cancelOnReader(link),
            .tellOwner(link, lane: "Lane X", generation: OwnershipGeneration(2)),
        ])
        #expect(changed.displaced.map(\.session) == [a])
        #expect(changed.displaced.first?.interrupted == [collect])
        #expect(fixture.registry.links[fixture.reader]?.pending.keys.sorted() == [mine.command])
        // Repeating the row changes nothing.
        #expect(fixture.registry.ownershipChanged(row(fixture, generation: 2, owner: other, lane: "Lane X", node: me), me: me).actions.isEmpty)
    }

    @Test func aNoticeConcernsThisReplicaOnlyForItsLinksAndItsSessionsThatLostTheReader() {
        var fixture = RegistryFixture()
        fixture.attach()
        fixture.open("A")
        fixture.claim("A", generation: 1)
        let reader = fixture.reader
        // Same owner, same link: nothing to re-read.
        #expect(fixture.registry.noticeReceived(reader, generation: OwnershipGeneration(1), session: a, epoch: LinkEpoch(1), node: me, me: me) == false)
        // A newer generation than the link has seen.
        #expect(fixture.registry.noticeReceived(reader, generation: OwnershipGeneration(2), session: a, epoch: LinkEpoch(1), node: me, me: me) == true)
        // The link moved to another replica.
        #expect(fixture.registry.noticeReceived(reader, generation: OwnershipGeneration(1), session: a, epoch: LinkEpoch(2), node: "node-b", me: me) == true)
        // A reader nobody here cares about.
        #expect(fixture.registry.noticeReceived(ReaderID("tmr_other"), generation: OwnershipGeneration(9), session: nil, epoch: LinkEpoch(1), node: nil, me: me) == false)
    }

    @Test func aNoticeOfAnotherEpochForgetsTheCachedHome() {
        var fixture = RegistryFixture()
        fixture.open("A")
        fixture.claim("A", generation: 1)
        let home = ReaderHomeCache(epoch: LinkEpoch(3), node: "node-b", internalAddress: "10.0.0.2:7001")
        fixture.registry.homeLearned(home, session: a, reader: fixture.reader)
        #expect(fixture.registry.home(of: a) == home)
        _ = fixture.registry.noticeReceived(fixture.reader, generation: OwnershipGeneration(1), session: a, epoch: LinkEpoch(3), node: "node-b", me: me)
        #expect(fixture.registry.home(of: a) == home)
        _ = fixture.registry.noticeReceived(fixture.reader, generation: OwnershipGeneration(1), session: a, epoch: LinkEpoch(4), node: "node-c", me: me)
        #expect(fixture.registry.home(of: a) == nil)
        // Without a link here, the relay goes to the home.
        guard case .remote(let owned) = fixture.relay("A") else { Issue.record("not remote"); return }
        #expect(owned.reader == fixture.reader)
    }

    @Test func aRelayFromAnotherReplicaIsFencedByEpochAndGeneration() {
        var fixture = RegistryFixture()
        fixture.attach(epoch: 5)
        let reader = fixture.reader
        #expect(fixture.registry.replicaRelayRequested(reader, epoch: LinkEpoch(4), generation: OwnershipGeneration(3)) == .linkMoved)
        #expect(fixture.registry.replicaRelayRequested(ReaderID("tmr_gone"), epoch: LinkEpoch(5), generation: OwnershipGeneration(3)) == .linkMoved)
        #expect(fixture.registry.replicaRelayRequested(reader, epoch: LinkEpoch(5), generation: OwnershipGeneration(3)) == .accepted)
        #expect(fixture.registry.links[reader]?.knownGeneration == OwnershipGeneration(3))
        #expect(fixture.registry.replicaRelayRequested(reader, epoch: LinkEpoch(5), generation: OwnershipGeneration(2)) == .staleGeneration)
        #expect(fixture.registry.replicaRelayRequested(reader, epoch: LinkEpoch(5), generation: OwnershipGeneration(3)) == .accepted)
    }

    @Test func aFencedReplicaDropsEveryLinkAndSessionWithoutForgettingWhatToEnd() {
        var fixture = RegistryFixture()
        let link = fixture.attach()
        fixture.open("A")
        let stream = fixture.subscribe("A").stream
        fixture.claim("A", generation: 1)
        guard case .local(let key, _) = fixture.relay("A") else { Issue.record("not relayed"); return }
        let fenced = fixture.registry.fenced()
        #expect(fenced.actions == [.failCommand(key, .replicaFenced), .closeLink(link, .replicaFenced), .endStream(stream, .replicaFenced)])
        #expect(fenced.links.map(\.id) == [link])
        #expect(fenced.sessionCount == 1)
        #expect(fixture.registry.links.isEmpty && fixture.registry.sessions.isEmpty)
        #expect(fixture.registry.owner(of: fixture.reader) == nil)
        #expect(fixture.registry.readersOfInterest.isEmpty)
    }
}
