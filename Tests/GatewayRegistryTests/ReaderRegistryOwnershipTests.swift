import GatewayDomain
@testable import GatewayRegistry
import GatewayWire
import Testing

/// The store's ownership decisions (made here by ``ReaderOwnershipStateMachine``, the rules
/// the SQL claim encodes) applied to the registry: who hears what, which commands fail.
@Suite("Reader registry: ownership decisions applied to memory")
struct ReaderRegistryOwnershipTests {
    let a = RegistryFixture.session("A")
    let b = RegistryFixture.session("B")

    func arbiter(_ fixture: RegistryFixture) -> ReaderOwnershipStateMachine {
        ReaderOwnershipStateMachine(reader: fixture.reader, link: .online(LinkEpoch(1)))
    }

    func connect(_ arbiter: inout ReaderOwnershipStateMachine, _ name: String, failIfInUse: Bool = false) -> ConnectResult {
        arbiter.connect(ConnectRequest(session: RegistryFixture.session(name), lane: LaneLabel("Lane \(name)"), failIfInUse: failIfInUse))
    }

    @Test func aConnectGrantedToAFreeReaderTellsTheReaderItsOwner() {
        var fixture = RegistryFixture()
        let link = fixture.attach()
        fixture.open("A")
        var store = arbiter(fixture)
        guard case .granted(.connected, let generation, let actions) = connect(&store, "A") else { Issue.record("not granted"); return }
        #expect(fixture.claim("A", generation: generation.rawValue, actions: actions) == [.tellOwner(link, lane: "Lane A", generation: generation)])
        #expect(fixture.registry.owner(of: fixture.reader)?.id == a)
        #expect(fixture.session("A")?.generation == generation)
    }

    @Test func aReplacedSessionHearsAtOnceWhoTookTheReaderAndItsNextCommandFails() {
        var fixture = RegistryFixture()
        let link = fixture.attach()
        fixture.open("A")
        fixture.open("B", connection: 2)
        let stream = fixture.subscribe("A").stream
        var store = arbiter(fixture)
        guard case .granted(_, let first, let granted) = connect(&store, "A") else { Issue.record("not granted"); return }
        fixture.claim("A", generation: first.rawValue, actions: granted)
        guard case .granted(.replaced, let second, let actions) = connect(&store, "B") else { Issue.record("not replaced"); return }

        let result = fixture.claim("B", generation: second.rawValue, actions: actions)

        #expect(result.count == 2)
        guard case .sendEvent(let event, let to)? = result.first, case .disconnected(let disconnected)? = event.message.event else {
            Issue.record("the displaced session is not told first: \(result)")
            return
        }
        #expect(to == stream)
        #expect(disconnected.reason == .replaced)
        #expect(disconnected.takenByLaneLabel == "Lane B")
        #expect(disconnected.takenByPosDeviceID == "pos-B")
        #expect(disconnected.generation == UInt64(first.rawValue))
        #expect(disconnected.message == "Lane B connected to the reader")
        #expect(result.last == .tellOwner(link, lane: "Lane B", generation: second))
        #expect(fixture.session("A")?.reader == nil)
        #expect(fixture.registry.owner(of: fixture.reader)?.id == b)
        #expect(fixture.relay("A") == .refused(.refusal(.connectedToAnotherSession)))
        #expect(fixture.relay("A") == .refused(.notConnected))
    }

    @Test func failIfInUseRefusedLeavesEverythingAndATakeoverCancelsTheInterruptedCollect() {
        var fixture = RegistryFixture()
        let link = fixture.attach()
        fixture.open("A")
        fixture.open("B", connection: 2)
        var store = arbiter(fixture)
        guard case .granted(_, let first, let granted) = connect(&store, "A") else { Issue.record("not granted"); return }
        fixture.claim("A", generation: first.rawValue, actions: granted)
        #expect(store.commandStarted(.collectPaymentMethod, session: a, generation: first) == .proceed)
        let collect = fixture.registry.commandDispatched(a, to: fixture.reader, isCollect: true, reboot: false, deadline: fixture.start + .seconds(30))
        #expect(collect != nil)

        // failIfInUse: the store refuses; the registry is not told and nothing changes.
        guard case .refused(.readerBusy, _) = connect(&store, "B", failIfInUse: true) else { Issue.record("not refused"); return }
        #expect(fixture.registry.owner(of: fixture.reader)?.id == a)
        #expect(fixture.registry.pendingCommandCount == 1)

        guard case .granted(.replaced, let second, let actions) = connect(&store, "B") else { Issue.record("not replaced"); return }
        let result = fixture.claim("B", generation: second.rawValue, actions: actions)

        // A has no stream: its event is buffered; the collect fails, the reader cancels it.
        #expect(result == [
            .failCommand(collect!, .refusal(.connectedToAnotherSession)),
            .cancelOnReader(link),
            .tellOwner(link, lane: "Lane B", generation: second),
        ])
        guard case .disconnected(let disconnected)? = fixture.session("A")?.bufferedEvents.last?.message.event else {
            Issue.record("the displaced session's event is not buffered")
            return
        }
        #expect(disconnected.reason == .replaced)
        #expect(fixture.registry.pendingCommandCount == 0)
    }

    @Test func anAdminReleaseFailsTheNextCommandWithNotConnected() {
        var fixture = RegistryFixture()
        let link = fixture.attach()
        fixture.open("A")
        let stream = fixture.subscribe("A").stream
        var store = arbiter(fixture)
        guard case .granted(_, let first, let granted) = connect(&store, "A") else { Issue.record("not granted"); return }
        fixture.claim("A", generation: first.rawValue, actions: granted)
        guard case .released(_, let generation, let actions) = store.adminRelease() else { Issue.record("not released"); return }

        let result = fixture.registry.readerReleased(fixture.reader, generation: generation, actions: actions, reason: .adminReleased, nowUnixMs: 5)

        #expect(result.count == 2)
        #expect(result.first?.disconnected?.reason == .adminReleased)
        #expect(result.first?.disconnected?.message == "a fleet admin released the reader")
        if case .sendEvent(_, let to)? = result.first { #expect(to == stream) }
        #expect(result.last == .tellOwner(link, lane: "", generation: generation))
        #expect(fixture.relay("A") == .refused(.refusal(.notConnected)))
    }

    @Test func aRebootedReadersOwnerHearsTheRebootAndItsNextCommandFailsOffline() {
        var fixture = RegistryFixture()
        let link = fixture.attach()
        fixture.open("A")
        var store = arbiter(fixture)
        guard case .granted(_, let first, let granted) = connect(&store, "A") else { Issue.record("not granted"); return }
        fixture.claim("A", generation: first.rawValue, actions: granted)
        guard case .local(let reboot, _) = fixture.relay("A", reboot: true) else { Issue.record("not relayed"); return }

        let ended = fixture.registry.linkEnded(fixture.reader, link: link)
        #expect(ended == ReaderRegistry.EndedLink(epoch: LinkEpoch(1), rebootRequested: true, failed: [reboot]))
        #expect(fixture.registry.rebootingReaders == [fixture.reader])
        guard case .ownerLost(_, let generation, let actions) = store.readerLost(epoch: LinkEpoch(1)) else { Issue.record("no owner lost"); return }
        _ = fixture.registry.ownershipDecided(fixture.reader, generation: generation, actions: actions, reason: .rebootRequested, nowUnixMs: 5)
        fixture.registry.rebootReported(fixture.reader)

        guard case .disconnected(let disconnected)? = fixture.session("A")?.bufferedEvents.last?.message.event else { Issue.record("no event"); return }
        #expect(disconnected.reason == .rebootRequested)
        #expect(disconnected.message == "the reader rebooted")
        #expect(fixture.registry.rebootingReaders.isEmpty)
        #expect(fixture.relay("A") == .refused(.refusal(.readerOffline)))
    }

    @Test func sessionsHereHoldingTheReaderAtAnOlderGenerationHearTheyWereReplaced() {
        var fixture = RegistryFixture()
        fixture.attach()
        fixture.open("A")
        fixture.open("B", connection: 2)
        fixture.claim("A", generation: 1)
        // The store's displaced owner was a session on another replica (generation 2);
        // B's claim at 3 tells A, which missed the change, as well.
        _ = fixture.claim("B", generation: 3)
        guard case .disconnected(let disconnected)? = fixture.session("A")?.bufferedEvents.last?.message.event else { Issue.record("A not told"); return }
        #expect(disconnected.reason == .replaced)
        #expect(disconnected.takenByLaneLabel == "Lane B")
        #expect(disconnected.generation == 1)
        #expect(fixture.relay("A") == .refused(.refusal(.connectedToAnotherSession)))
        #expect(fixture.registry.owner(of: fixture.reader)?.id == b)
    }

    @Test func aDisconnectLetsGoOfTheReaderAndTheReaderHearsItHasNoOwner() {
        var fixture = RegistryFixture()
        let link = fixture.attach()
        fixture.open("A")
        var store = arbiter(fixture)
        guard case .granted(_, let first, let granted) = connect(&store, "A") else { Issue.record("not granted"); return }
        fixture.claim("A", generation: first.rawValue, actions: granted)
        guard case .released(_, let generation, let actions) = store.disconnect(session: a, generation: first) else { Issue.record("not released"); return }
        fixture.registry.readerLetGo(fixture.reader, by: a)
        let result = fixture.registry.readerReleased(fixture.reader, generation: generation, actions: actions, reason: .requested, nowUnixMs: 5)
        #expect(result == [.tellOwner(link, lane: "", generation: generation)])
        #expect(fixture.registry.owner(of: fixture.reader) == nil)
        #expect(fixture.relay("A") == .refused(.notConnected))
    }

    @Test func ownerIsTheHolderAtTheNewestGeneration() {
        var fixture = RegistryFixture()
        // Two sessions adopted from the store, each with the reader its row named then.
        for (name, generation) in [("A", Int64(2)), ("B", Int64(4))] {
            _ = fixture.registry.sessionAdopted(
                RegistrySession(
                    id: RegistryFixture.session(name), token: RegistryFixture.token(name), accountID: "acct_1", locationScope: nil,
                    posDeviceID: "pos-\(name)", lane: LaneLabel("Lane \(name)"), discovery: DiscoveryStateMachine(), connection: 1,
                    nowUnixMs: 1, reader: fixture.reader, generation: OwnershipGeneration(generation)
                )
            )
        }
        #expect(fixture.registry.owner(of: fixture.reader)?.id == b)
        #expect(fixture.registry.readersOfInterest == [fixture.reader])
        fixture.registry.readerLetGo(fixture.reader, by: b)
        #expect(fixture.registry.owner(of: fixture.reader)?.id == a)
    }
}
