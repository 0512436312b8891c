import GatewayTestKit
import GatewayDomain
import Testing

@Suite("Ownership: invariants over random event sequences")
struct ReaderOwnershipInvariantTests {
    static let sessions = (0..<4).map { ReaderOwner(session: SessionID("s\($0)"), lane: LaneLabel("lane \($0)")) }

    /// Applies one random event, returns the actions it asked for.
    static func step(_ machine: inout ReaderOwnershipStateMachine, epoch: inout Int64, using random: inout SplitMix64) -> [OwnershipAction] {
        let who = sessions[Int(random.next() % UInt64(sessions.count))]
        // Sessions usually write with the generation they hold, sometimes with an older one.
        let generation = random.next() % 4 == 0 ? OwnershipGeneration(max(0, machine.generation.rawValue - 1)) : machine.generation
        let command = ReaderCommand.allCases[Int(random.next() % UInt64(ReaderCommand.allCases.count))]
        switch random.next() % 10 {
        case 0, 1, 2:
            let request = ConnectRequest(session: who.session, lane: who.lane, failIfInUse: random.next() % 2 == 0)
            switch machine.connect(request) {
            case .granted(_, _, let actions), .refused(_, let actions): return actions
            }
        case 3, 4:
            _ = machine.commandStarted(command, session: who.session, generation: generation)
        case 5:
            _ = machine.commandFinished(command, session: who.session, generation: generation)
        case 6:
            if case .released(_, _, let actions) = machine.disconnect(session: who.session, generation: generation) { return actions }
        case 7:
            if case .released(_, _, let actions) = random.next() % 2 == 0 ? machine.sessionExpired(who.session) : machine.adminRelease() {
                return actions
            }
        case 8:
            if case .ownerLost(_, _, let actions) = machine.readerLost(epoch: LinkEpoch(epoch)) { return actions }
        default:
            epoch += random.next() % 3 == 0 ? 0 : 1
            let (owner, generation, command) = (machine.owner, machine.generation, machine.commandInProgress)
            let result = machine.readerAttached(epoch: LinkEpoch(epoch))
            // A re-attach never changes who owns the reader.
            #expect(result == .updated || result == .ignoredStale)
            #expect(machine.owner == owner && machine.generation == generation && machine.commandInProgress == command)
        }
        return []
    }

    @Test("generation only grows, one history row per change, the command belongs to the owner", arguments: [1, 2, 3, 42] as [UInt64])
    func randomWalk(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        var machine = ReaderOwnershipStateMachine(reader: Fixture.reader, link: .online(LinkEpoch(1)))
        var epoch: Int64 = 1
        var changes = 0
        for _ in 0..<5_000 {
            let before = machine.generation
            let actions = Self.step(&machine, epoch: &epoch, using: &random)
            #expect(machine.generation >= before)
            let history = actions.compactMap { action -> OwnershipHistoryEvent? in
                if case .recordHistory(let event) = action { return event } else { return nil }
            }
            let ownerChanges = history.filter { $0.reason.changesOwner }
            #expect(ownerChanges.count == Int(machine.generation.rawValue - before.rawValue))
            for event in ownerChanges {
                changes += 1
                #expect(event.generation.rawValue == Int64(changes), "history generations have no gaps")
            }
            if let command = machine.commandInProgress {
                #expect(command.session == machine.owner?.session)
                #expect(command.command.marksReaderInUse)
            }
            if case .online = machine.link {} else { #expect(machine.owner == nil) }
        }
        #expect(changes > 100, "the walk exercised ownership changes")
    }

    @Test("a re-attach keeps the owner, its generation and its transaction; the old link is stale")
    func reattachKeepsTheOwner() {
        var machine = Fixture.ownedByA(midTransaction: true)
        let collect = CommandInProgress(command: .collectPaymentMethod, session: Fixture.sessionA)
        #expect(machine.readerAttached(epoch: LinkEpoch(2)) == .updated)
        #expect(machine.link == .online(LinkEpoch(2)))
        #expect(machine.owner == Fixture.ownerA)
        #expect(machine.generation == OwnershipGeneration(3))
        #expect(machine.commandInProgress == collect)
        // The old link ending later changes nothing; the owner's writes still pass.
        #expect(machine.readerLost(epoch: LinkEpoch(1)) == .ignoredStale)
        #expect(machine.owner == Fixture.ownerA)
        #expect(machine.commandFinished(.collectPaymentMethod, session: Fixture.sessionA, generation: OwnershipGeneration(3)) == .finished)
        // A duplicate attach of the same epoch is stale; a third link keeps the owner too.
        #expect(machine.readerAttached(epoch: LinkEpoch(2)) == .ignoredStale)
        #expect(machine.readerAttached(epoch: LinkEpoch(5)) == .updated)
        #expect(machine.owner == Fixture.ownerA && machine.generation == OwnershipGeneration(3))
        // Only the current link's loss ends the ownership.
        #expect(machine.readerLost(epoch: LinkEpoch(5)) == .ownerLost(Fixture.ownerA, generation: OwnershipGeneration(4), actions: [
            .notifyDisplaced(session: Fixture.sessionA, reason: .readerOffline, takenBy: nil),
            .failNextCommand(session: Fixture.sessionA, refusal: .readerOffline),
            .recordHistory(OwnershipHistoryEvent(reader: Fixture.reader, from: Fixture.ownerA, to: nil, generation: OwnershipGeneration(4), reason: .readerLost)),
        ]))
    }

    @Test("the stale owner's writes change nothing after a takeover")
    func staleOwnerIsFenced() {
        var machine = Fixture.ownedByA(midTransaction: false)
        _ = machine.connect(Fixture.connect(Fixture.ownerB, failIfInUse: false))
        let g3 = OwnershipGeneration(3)
        #expect(machine.commandStarted(.collectPaymentMethod, session: Fixture.sessionA, generation: g3) == .refused(.connectedToAnotherSession))
        #expect(machine.disconnect(session: Fixture.sessionA, generation: g3) == .refused(.connectedToAnotherSession))
        #expect(machine.owner == Fixture.ownerB)
        #expect(machine.commandInProgress == nil)
        #expect(machine.generation == OwnershipGeneration(4))
    }

    @Test("ending an ownership tells the owner why, cancels its transaction and records the reason")
    func endingActions() {
        let collect = CommandInProgress(command: .collectPaymentMethod, session: Fixture.sessionA)
        func history(_ reason: OwnershipHistoryReason) -> OwnershipAction {
            .recordHistory(OwnershipHistoryEvent(reader: Fixture.reader, from: Fixture.ownerA, to: nil, generation: OwnershipGeneration(4), reason: reason))
        }
        var expired = Fixture.ownedByA(midTransaction: true)
        #expect(expired.sessionExpired(Fixture.sessionA) == .released(Fixture.ownerA, generation: OwnershipGeneration(4), actions: [
            .cancelCommand(collect),
            .notifyDisplaced(session: Fixture.sessionA, reason: .sessionExpired, takenBy: nil),
            .failNextCommand(session: Fixture.sessionA, refusal: .connectedToAnotherSession),
            history(.sessionExpired),
        ]))
        var admin = Fixture.ownedByA(midTransaction: false)
        #expect(admin.adminRelease() == .released(Fixture.ownerA, generation: OwnershipGeneration(4), actions: [
            .notifyDisplaced(session: Fixture.sessionA, reason: .adminReleased, takenBy: nil),
            .failNextCommand(session: Fixture.sessionA, refusal: .connectedToAnotherSession),
            history(.adminReleased),
        ]))
        var lost = Fixture.ownedByA(midTransaction: true)
        #expect(lost.readerLost(epoch: LinkEpoch(1)) == .ownerLost(Fixture.ownerA, generation: OwnershipGeneration(4), actions: [
            .cancelCommand(collect),
            .notifyDisplaced(session: Fixture.sessionA, reason: .readerOffline, takenBy: nil),
            .failNextCommand(session: Fixture.sessionA, refusal: .readerOffline),
            history(.readerLost),
        ]))
        var released = Fixture.ownedByA(midTransaction: false)
        #expect(released.disconnect(session: Fixture.sessionA, generation: OwnershipGeneration(3))
            == .released(Fixture.ownerA, generation: OwnershipGeneration(4), actions: [history(.released)]))
    }

    @Test("an impossible initial state is normalised, not trusted")
    func normalisesInitialState() {
        let offlineOwned = ReaderOwnershipStateMachine(
            reader: Fixture.reader,
            link: .offline(LinkEpoch(1)),
            owner: Fixture.ownerA,
            commandInProgress: CommandInProgress(command: .collectPaymentMethod, session: Fixture.sessionA)
        )
        #expect(offlineOwned.owner == nil && offlineOwned.commandInProgress == nil)
        let foreignCommand = ReaderOwnershipStateMachine(
            reader: Fixture.reader,
            link: .online(LinkEpoch(1)),
            owner: Fixture.ownerA,
            commandInProgress: CommandInProgress(command: .collectPaymentMethod, session: Fixture.sessionB)
        )
        #expect(foreignCommand.commandInProgress == nil)
    }
}
