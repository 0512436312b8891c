import GatewayDomain
@testable import GatewayRegistry
import GatewayWire
import Testing

/// A replica's session is a cache of its row: adoption by epoch, stale copies dropped.
@Suite("Reader registry: adopting sessions from their rows")
struct ReaderRegistryAdoptionTests {
    let a = RegistryFixture.session("A")
    let tokenA = RegistryFixture.token("A")
    let other = ReaderID("tmr_2")

    /// A buffered `disconnected` event of `reader` at `generation`, with sequence `sequence`.
    func lost(_ reader: ReaderID, generation: Int64, sequence: UInt64) -> SessionNotice {
        SessionNotice(
            sequence: sequence, atUnixMs: 0,
            event: .disconnected(ReaderLoss(reader: reader, reason: .replaced, generation: OwnershipGeneration(generation), takenByLane: "Lane B", takenByPosDeviceID: "pos-B"))
        )
    }

    @Test func aCallOnAConnectionTheSessionIsNotBoundToIsNotAnsweredFromMemory() {
        var fixture = RegistryFixture()
        fixture.attach()
        fixture.open("A", connection: 1)
        fixture.claim("A", generation: 1)
        #expect(fixture.registry.sessionUsed(tokenA, connection: 2, now: fixture.start, nowUnixMs: 5, lease: fixture.lease) == nil)
        #expect(fixture.relay("A", connection: 2) == .unknownSession)
        #expect(fixture.session("A")?.connections == [1])
        #expect(fixture.registry.sessionUsed(tokenA, connection: 1, now: fixture.start, nowUnixMs: 5, lease: fixture.lease)?.reader == fixture.reader)
    }

    @Test func anAdoptionOneEpochOnKeepsTheCopyAndItsBufferedEvents() {
        var fixture = RegistryFixture()
        fixture.attach()
        fixture.open("A", connection: 1)
        fixture.claim("A", generation: 1)
        let stream = fixture.subscribe("A").stream
        fixture.registry.eventUndelivered(lost(other, generation: 3, sequence: 1), stream: stream, session: a)
        fixture.registry.connectionClosed(1, now: fixture.start)

        let adoption = fixture.adopt("A", epoch: 2, connection: 2, reader: fixture.reader, generation: 1)
        #expect(adoption.isNew == false)
        #expect(adoption.actions.isEmpty)
        #expect(adoption.session.epoch == 2)
        #expect(adoption.session.connections == [2])
        #expect(adoption.session.detachedSince == nil)
        #expect(adoption.session.reader == fixture.reader)
        // The loss of another reader is still true: kept for the next subscription.
        #expect(adoption.session.bufferedEvents.map(\.sequence) == [1])
        #expect(fixture.registry.owner(of: fixture.reader)?.id == a)
    }

    @Test func anAdoptionOnAnotherConnectionEndsTheStreamOnTheConnectionTheLaneLeft() {
        var fixture = RegistryFixture()
        fixture.open("A", connection: 1)
        let left = fixture.subscribe("A", connection: 1).stream
        let adoption = fixture.adopt("A", epoch: 2, connection: 2)
        // Events wait for the subscription on connection 2 instead of going down the old one.
        #expect(adoption.actions == [.endStream(left, .sessionMoved)])
        #expect(adoption.session.stream == nil)
        #expect(adoption.session.streamConnection == nil)
        let next = fixture.subscribe("A", connection: 2)
        #expect(next.replaced == nil)
        #expect(fixture.session("A")?.streamConnection == 2)
    }

    @Test func aLossNotActedOnIsToldAgainToTheNextSubscription() {
        var fixture = RegistryFixture()
        fixture.attach()
        fixture.open("A", connection: 1)
        fixture.claim("A", generation: 1)
        let first = fixture.subscribe("A", connection: 1).stream
        fixture.open("B", connection: 3)
        // B takes the reader here: A is told on its stream, which the lane may already have left.
        let actions = fixture.claim("B", generation: 2, actions: [.notifyDisplaced(session: a, reason: .connectedToAnotherSession, takenBy: LaneLabel("Lane B")), .failNextCommand(session: a, refusal: .connectedToAnotherSession)])
        let told = actions.compactMap(\.disconnected).first
        #expect(told?.generation == 1)
        #expect(actions.contains { if case .sendEvent(_, first) = $0 { true } else { false } })
        fixture.adopt("A", epoch: 2, connection: 2)
        let again = fixture.subscribe("A", connection: 2)
        let retold: String? = if case .disconnected(let lost)? = again.retold?.message.event { lost.readerID } else { nil }
        #expect(retold == fixture.reader.rawValue)
        // The stream's order goes on from the session's next number: nothing waits for a gap.
        #expect(again.buffered.isEmpty)
        #expect(again.firstSequence == fixture.session("A")?.nextSequence)
        // Once the refusal is consumed, the loss is not told again.
        #expect(fixture.relay("A", connection: 2) == .refused(.refusal(.connectedToAnotherSession)))
        #expect(fixture.subscribe("A", connection: 2).retold == nil)
    }

    @Test func anAdoptionOnTheConnectionCarryingTheStreamKeepsTheStream() {
        var fixture = RegistryFixture()
        fixture.open("A", connection: 1)
        let stream = fixture.subscribe("A", connection: 1).stream
        let adoption = fixture.adopt("A", epoch: 2, connection: 1)
        #expect(adoption.actions.isEmpty)
        #expect(adoption.session.stream == stream)
        #expect(adoption.session.streamConnection == 1)
    }

    @Test func anAdoptionOneEpochOnTakesTheRowsReaderWhenItIsNewerThanMemorys() {
        var fixture = RegistryFixture()
        fixture.open("A", connection: 1)
        let adoption = fixture.adopt("A", epoch: 2, connection: 2, reader: other, generation: 7)
        #expect(adoption.session.reader == other)
        #expect(adoption.session.generation == OwnershipGeneration(7))
        #expect(fixture.registry.owner(of: other)?.id == a)
    }

    @Test func anAdoptionPastAnotherEpochReplacesTheStaleCopyWhole() {
        var fixture = RegistryFixture()
        fixture.attach()
        fixture.open("A", connection: 1)
        fixture.claim("A", generation: 1)
        let stream = fixture.subscribe("A").stream
        fixture.registry.eventUndelivered(lost(other, generation: 3, sequence: 1), stream: stream, session: a)
        _ = fixture.subscribe("A")
        let live = fixture.session("A")!.stream!
        #expect(fixture.session("A")?.discovery.latest == nil)

        // Meanwhile the session was adopted twice elsewhere (epochs 2 and 3): it owns the
        // other reader at generation 9 and discovered it as disc_4.
        let adoption = fixture.adopt("A", epoch: 4, connection: 7, reader: other, generation: 9, discovered: (4, [other.rawValue]))
        #expect(adoption.isNew == false)
        #expect(adoption.actions == [.endStream(live, .sessionMoved)])
        #expect(adoption.session.epoch == 4)
        #expect(adoption.session.connections == [7])
        #expect(adoption.session.stream == nil)
        #expect(adoption.session.bufferedEvents.isEmpty)
        #expect(adoption.session.reader == other)
        #expect(adoption.session.generation == OwnershipGeneration(9))
        #expect(adoption.session.discovery.latest == DiscoveryStateMachine.DiscoveryID(4))
        #expect(adoption.session.discovered == [other.rawValue])
        // Memory no longer says the stale copy holds the first reader.
        #expect(fixture.registry.owner(of: fixture.reader) == nil)
        #expect(fixture.registry.owner(of: other)?.id == a)
        // Its calls on the old connection, whose stream ended, must resume there first.
        #expect(fixture.relay("A", connection: 1) == .refused(.resumeFirst(.sessionMoved)))
    }

    @Test func lossesOfAnEarlierGenerationOfTheReaderItHoldsAreNotDeliveredAfterTheResume() {
        var fixture = RegistryFixture()
        fixture.open("A", connection: 1)
        let stream = fixture.subscribe("A").stream
        fixture.registry.eventUndelivered(lost(fixture.reader, generation: 2, sequence: 1), stream: stream, session: a)
        fixture.registry.eventUndelivered(lost(other, generation: 3, sequence: 2), stream: stream, session: a)
        fixture.registry.eventUndelivered(lost(fixture.reader, generation: 4, sequence: 3), stream: stream, session: a)

        let adoption = fixture.adopt("A", epoch: 2, connection: 2, reader: fixture.reader, generation: 4)
        // Generation 2's loss is obsolete (it holds the reader at 4 again); the other reader's
        // loss and generation 4's own stay.
        #expect(adoption.session.bufferedEvents.map(\.sequence) == [2, 3])
    }

    @Test func aConcurrentAdoptionAtTheSameEpochBindsTheConnectionAndChangesNothingElse() {
        var fixture = RegistryFixture()
        fixture.open("A", connection: 1)
        fixture.adopt("A", epoch: 3, connection: 2, reader: other, generation: 5)
        let again = fixture.adopt("A", epoch: 3, connection: 4, reader: nil, generation: 0)
        #expect(again.actions.isEmpty)
        #expect(again.session.reader == other)
        #expect(again.session.connections.isSuperset(of: [2, 4]))
    }

    @Test func aMoveNoticeDropsOnlyCopiesOlderThanItsEpoch() {
        var fixture = RegistryFixture()
        fixture.attach()
        fixture.open("A", connection: 1)
        fixture.adopt("A", epoch: 2, connection: 1)
        fixture.claim("A", generation: 1)
        let stream = fixture.subscribe("A").stream
        #expect(fixture.registry.sessionMoved(a, epoch: 2) == nil)
        #expect(fixture.registry.sessionMoved(RegistryFixture.session("Z"), epoch: 9) == nil)
        let dropped = fixture.registry.sessionMoved(a, epoch: 3)
        #expect(dropped?.session.id == a)
        #expect(dropped?.actions == [.endStream(stream, .sessionMoved)])
        #expect(fixture.session("A") == nil)
        #expect(fixture.registry.owner(of: fixture.reader) == nil)
        // The connection whose stream ended must resume before its calls are answered.
        #expect(fixture.relay("A", connection: 1) == .refused(.resumeFirst(.sessionMoved)))
    }

    @Test func copiesTheRenewalLeftOutAreDroppedUnlessAdoptedAgainMeanwhile() {
        var fixture = RegistryFixture()
        fixture.open("A", connection: 1)
        fixture.open("B", connection: 2)
        let sweep = fixture.registry.leaseSweep(now: fixture.start, lease: fixture.lease)
        #expect(Set(sweep.attached) == [SessionEpoch(id: a, epoch: 1), SessionEpoch(id: RegistryFixture.session("B"), epoch: 1)])
        // B was adopted here again (epoch 2) between the sweep and its answer: that copy is current.
        fixture.adopt("B", epoch: 2, connection: 3)
        let result = fixture.registry.sessionsNotRenewed(sweep.attached)
        #expect(result.sessions.map(\.id) == [a])
        #expect(fixture.session("A") == nil)
        #expect(fixture.session("B")?.epoch == 2)
    }
}
