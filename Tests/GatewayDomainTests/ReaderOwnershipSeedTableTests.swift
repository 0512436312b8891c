import GatewayDomain
import Testing

/// The "Multiple connections" table of Stripe Terminal's connect-reader page, cell by cell:
/// rows are the reader's state (idle, mid-transaction), columns failIfInUse false / true.
@Suite("Ownership: the failIfInUse table")
struct ReaderOwnershipSeedTableTests {
    /// Taking over: the new session connects, the old one is told and its next command fails.
    private func expectTakeover(_ result: ConnectResult, machine: ReaderOwnershipStateMachine, interrupted: CommandInProgress?) {
        var expected: [OwnershipAction] = []
        if let interrupted { expected.append(.cancelCommand(interrupted)) }
        expected += [
            .notifyDisplaced(session: Fixture.sessionA, reason: .connectedToAnotherSession, takenBy: Fixture.laneB),
            .failNextCommand(session: Fixture.sessionA, refusal: .connectedToAnotherSession),
            .recordHistory(
                OwnershipHistoryEvent(
                    reader: Fixture.reader,
                    from: Fixture.ownerA,
                    to: Fixture.ownerB,
                    generation: OwnershipGeneration(4),
                    reason: .replaced
                )
            ),
        ]
        #expect(result == .granted(.replaced(Fixture.ownerA), generation: OwnershipGeneration(4), actions: expected))
        #expect(machine.owner == Fixture.ownerB)
        #expect(machine.commandInProgress == nil)
    }

    @Test("idle reader, failIfInUse false: the new session connects, the old one is disconnected")
    func idleDefault() {
        var machine = Fixture.ownedByA(midTransaction: false)
        let result = machine.connect(Fixture.connect(Fixture.ownerB, failIfInUse: false))
        expectTakeover(result, machine: machine, interrupted: nil)
        // The next command from the previously connected SDK fails with a reader error.
        #expect(machine.commandStarted(.collectPaymentMethod, session: Fixture.sessionA, generation: OwnershipGeneration(3))
            == .refused(.connectedToAnotherSession))
    }

    @Test("idle reader, failIfInUse true: same as the default")
    func idleFailIfInUse() {
        var machine = Fixture.ownedByA(midTransaction: false)
        let result = machine.connect(Fixture.connect(Fixture.ownerB, failIfInUse: true))
        expectTakeover(result, machine: machine, interrupted: nil)
        #expect(machine.commandStarted(.setReaderDisplay, session: Fixture.sessionA, generation: OwnershipGeneration(3))
            == .refused(.connectedToAnotherSession))
    }

    @Test("mid-transaction reader, failIfInUse false: the new session connects, the old one is disconnected")
    func midTransactionDefault() {
        var machine = Fixture.ownedByA(midTransaction: true)
        let result = machine.connect(Fixture.connect(Fixture.ownerB, failIfInUse: false))
        expectTakeover(
            result,
            machine: machine,
            interrupted: CommandInProgress(command: .collectPaymentMethod, session: Fixture.sessionA)
        )
        #expect(machine.commandFinished(.collectPaymentMethod, session: Fixture.sessionA, generation: OwnershipGeneration(3))
            == .ignored(.connectedToAnotherSession))
    }

    @Test("mid-transaction reader, failIfInUse true: the connect fails, the owner keeps it, the command continues")
    func midTransactionFailIfInUse() {
        var machine = Fixture.ownedByA(midTransaction: true)
        let result = machine.connect(Fixture.connect(Fixture.ownerB, failIfInUse: true))
        let refusal = OwnershipHistoryEvent(
            reader: Fixture.reader,
            from: Fixture.ownerA,
            to: Fixture.ownerB,
            generation: OwnershipGeneration(3),
            reason: .refusedBusy
        )
        #expect(result == .refused(.readerBusy, actions: [.recordHistory(refusal)]))
        #expect(machine.owner == Fixture.ownerA)
        #expect(machine.generation == OwnershipGeneration(3))
        #expect(machine.commandInProgress == CommandInProgress(command: .collectPaymentMethod, session: Fixture.sessionA))
        // The command in progress continues and finishes normally.
        #expect(machine.commandFinished(.collectPaymentMethod, session: Fixture.sessionA, generation: OwnershipGeneration(3)) == .finished)
        // Once idle, the same failIfInUse connect succeeds.
        #expect(Summary.result(machine.connect(Fixture.connect(Fixture.ownerB, failIfInUse: true))) == "granted replaced(A) g4")
    }

    @Test("a cart on the display is not in use", arguments: [ReaderCommand.setReaderDisplay, .clearReaderDisplay])
    func cartIsNotInUse(command: ReaderCommand) {
        var machine = Fixture.ownedByA(midTransaction: false)
        #expect(machine.commandStarted(command, session: Fixture.sessionA, generation: OwnershipGeneration(3)) == .proceed)
        #expect(!machine.isMidTransaction)
        #expect(Summary.result(machine.connect(Fixture.connect(Fixture.ownerB, failIfInUse: true))) == "granted replaced(A) g4")
    }

    @Test("confirmPaymentIntent counts as in use exactly like collectPaymentMethod")
    func confirmIsInUse() {
        var machine = Fixture.ownedByA(midTransaction: false)
        #expect(machine.commandStarted(.confirmPaymentIntent, session: Fixture.sessionA, generation: OwnershipGeneration(3)) == .proceed)
        #expect(Summary.result(machine.connect(Fixture.connect(Fixture.ownerB, failIfInUse: true))) == "refused reader_busy")
    }

    @Test("the owner reconnecting to its own mid-transaction reader is not a takeover", arguments: [false, true])
    func reconnectOwnReader(failIfInUse: Bool) {
        var machine = Fixture.ownedByA(midTransaction: true)
        let result = machine.connect(Fixture.connect(Fixture.ownerA, failIfInUse: failIfInUse))
        #expect(result == .granted(.alreadyOwner, generation: OwnershipGeneration(3), actions: []))
        #expect(machine.commandInProgress?.session == Fixture.sessionA)
    }
}
