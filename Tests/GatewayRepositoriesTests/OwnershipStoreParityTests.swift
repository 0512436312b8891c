import GatewayDomain
import GatewayPostgres
import GatewayRepositories
import Testing

/// The store and the state machine decide alike: every event in every state, once through
/// ``ReaderOwnershipStateMachine`` and once through ``OwnershipStore`` on PostgreSQL, must give
/// the same decision, the same actions, the same state after, and the history row the machine
/// asked for.
@Suite("Ownership store: decides like the state machine in every cell")
struct OwnershipStoreParityTests {
    static let stateNames = ["unknown", "offline", "free", "idle", "cart", "busy"]
    static let eventNames = [
        "connect A", "connect A failIfInUse", "connect B", "connect B failIfInUse", "connect B stale",
        "collect A g3", "collect A g2", "collect B g3", "display A g3",
        "finish collect A g3", "finish confirm A g3", "finish collect A g2",
        "disconnect A g3", "disconnect A g2", "disconnect B g3",
        "expire A", "expire B", "admin release", "lost e1", "lost e0", "attach e2", "attach e1",
    ]

    /// One cell's reader and sessions (unique per cell, so a lease sweep touches only its cell).
    struct Cell {
        var state: String
        var event: String
        var reader: ReaderID
        var ownerA: ReaderOwner
        var ownerB: ReaderOwner

        func machine() -> ReaderOwnershipStateMachine {
            let online = ReaderOwnershipStateMachine.Link.online(LinkEpoch(1))
            let g3 = OwnershipGeneration(3)
            switch state {
            case "unknown": return ReaderOwnershipStateMachine(reader: reader, link: .unknown)
            case "offline": return ReaderOwnershipStateMachine(reader: reader, link: .offline(LinkEpoch(1)), generation: g3)
            case "free": return ReaderOwnershipStateMachine(reader: reader, link: online, generation: g3)
            case "busy":
                return ReaderOwnershipStateMachine(
                    reader: reader, link: online, owner: ownerA, generation: g3,
                    commandInProgress: CommandInProgress(command: .collectPaymentMethod, session: ownerA.session)
                )
            default: return ReaderOwnershipStateMachine(reader: reader, link: online, owner: ownerA, generation: g3)
            }
        }

        func prepare(_ fixtures: OwnershipFixtures) async throws {
            try await fixtures.openSession(ownerA.session, lane: ownerA.lane)
            try await fixtures.openSession(ownerB.session, lane: ownerB.lane)
            guard state != "unknown" else { return }
            try await fixtures.registerReader(reader)
            switch state {
            case "offline": try await fixtures.setOwnership(reader, online: false, epoch: 1, generation: 3)
            case "free": try await fixtures.setOwnership(reader, online: true, epoch: 1, generation: 3)
            case "busy": try await fixtures.setOwnership(reader, online: true, epoch: 1, generation: 3, owner: ownerA, command: .collectPaymentMethod)
            default: try await fixtures.setOwnership(reader, online: true, epoch: 1, generation: 3, owner: ownerA)
            }
        }

        func request(_ owner: ReaderOwner, failIfInUse: Bool, stale: Bool = false) -> ConnectRequest {
            ConnectRequest(
                session: owner.session, lane: owner.lane, failIfInUse: failIfInUse,
                readerDiscovery: DiscoveryStateMachine.DiscoveryID(stale ? 4 : 5), latestDiscovery: DiscoveryStateMachine.DiscoveryID(5)
            )
        }

        /// Runs the event on the machine, returning its result and the history row it asked for.
        func runMachine(_ machine: inout ReaderOwnershipStateMachine) -> (String, OwnershipHistoryEvent?) {
            let g2 = OwnershipGeneration(2), g3 = OwnershipGeneration(3)
            let a = ownerA.session, b = ownerB.session
            switch event {
            case "connect A": return Outcome.of(machine.connect(request(ownerA, failIfInUse: false)))
            case "connect A failIfInUse": return Outcome.of(machine.connect(request(ownerA, failIfInUse: true)))
            case "connect B": return Outcome.of(machine.connect(request(ownerB, failIfInUse: false)))
            case "connect B failIfInUse": return Outcome.of(machine.connect(request(ownerB, failIfInUse: true)))
            case "connect B stale": return Outcome.of(machine.connect(request(ownerB, failIfInUse: false, stale: true)))
            case "collect A g3": return (Outcome.of(machine.commandStarted(.collectPaymentMethod, session: a, generation: g3)), nil)
            case "collect A g2": return (Outcome.of(machine.commandStarted(.collectPaymentMethod, session: a, generation: g2)), nil)
            case "collect B g3": return (Outcome.of(machine.commandStarted(.collectPaymentMethod, session: b, generation: g3)), nil)
            case "display A g3": return (Outcome.of(machine.commandStarted(.setReaderDisplay, session: a, generation: g3)), nil)
            case "finish collect A g3": return (Outcome.of(machine.commandFinished(.collectPaymentMethod, session: a, generation: g3)), nil)
            case "finish confirm A g3": return (Outcome.of(machine.commandFinished(.confirmPaymentIntent, session: a, generation: g3)), nil)
            case "finish collect A g2": return (Outcome.of(machine.commandFinished(.collectPaymentMethod, session: a, generation: g2)), nil)
            case "disconnect A g3": return Outcome.of(machine.disconnect(session: a, generation: g3))
            case "disconnect A g2": return Outcome.of(machine.disconnect(session: a, generation: g2))
            case "disconnect B g3": return Outcome.of(machine.disconnect(session: b, generation: g3))
            case "expire A": return Outcome.of(machine.sessionExpired(a))
            case "expire B": return Outcome.of(machine.sessionExpired(b))
            case "admin release": return Outcome.of(machine.adminRelease())
            case "lost e1": return Outcome.of(machine.readerLost(epoch: LinkEpoch(1)))
            case "lost e0": return Outcome.of(machine.readerLost(epoch: LinkEpoch(0)))
            case "attach e2": return Outcome.of(machine.readerAttached(epoch: LinkEpoch(2)))
            default: return Outcome.of(machine.readerAttached(epoch: LinkEpoch(1)))
            }
        }

        /// Runs the event through the store.
        func runStore(_ store: OwnershipStore, _ fixtures: OwnershipFixtures) async throws -> String {
            let g2 = OwnershipGeneration(2), g3 = OwnershipGeneration(3)
            let a = ownerA.session, b = ownerB.session
            switch event {
            case "connect A": return Outcome.of(try await store.claim(reader, request(ownerA, failIfInUse: false))).0
            case "connect A failIfInUse": return Outcome.of(try await store.claim(reader, request(ownerA, failIfInUse: true))).0
            case "connect B": return Outcome.of(try await store.claim(reader, request(ownerB, failIfInUse: false))).0
            case "connect B failIfInUse": return Outcome.of(try await store.claim(reader, request(ownerB, failIfInUse: true))).0
            case "connect B stale": return Outcome.of(try await store.claim(reader, request(ownerB, failIfInUse: false, stale: true))).0
            case "collect A g3": return Outcome.of(try await store.commandStarted(.collectPaymentMethod, reader: reader, session: a, generation: g3))
            case "collect A g2": return Outcome.of(try await store.commandStarted(.collectPaymentMethod, reader: reader, session: a, generation: g2))
            case "collect B g3": return Outcome.of(try await store.commandStarted(.collectPaymentMethod, reader: reader, session: b, generation: g3))
            case "display A g3": return Outcome.of(try await store.commandStarted(.setReaderDisplay, reader: reader, session: a, generation: g3))
            case "finish collect A g3": return Outcome.of(try await store.commandFinished(.collectPaymentMethod, reader: reader, session: a, generation: g3))
            case "finish confirm A g3": return Outcome.of(try await store.commandFinished(.confirmPaymentIntent, reader: reader, session: a, generation: g3))
            case "finish collect A g2": return Outcome.of(try await store.commandFinished(.collectPaymentMethod, reader: reader, session: a, generation: g2))
            case "disconnect A g3": return Outcome.of(try await store.disconnect(reader: reader, session: a, generation: g3)).0
            case "disconnect A g2": return Outcome.of(try await store.disconnect(reader: reader, session: a, generation: g2)).0
            case "disconnect B g3": return Outcome.of(try await store.disconnect(reader: reader, session: b, generation: g3)).0
            case "expire A", "expire B":
                try await fixtures.expireLease(event == "expire A" ? a : b)
                let expired = try await store.expireSessions(limit: 1000)
                return Outcome.of(expired.first { $0.reader == reader }?.result ?? .unchanged(nil)).0
            case "admin release": return Outcome.of(try await store.adminRelease(reader: reader)).0
            case "lost e1": return Outcome.of(try await store.readerLost(reader, epoch: LinkEpoch(1))).0
            case "lost e0": return Outcome.of(try await store.readerLost(reader, epoch: LinkEpoch(0))).0
            case "attach e2": return Outcome.of(try await store.readerAttached(reader, epoch: LinkEpoch(2)).0).0
            default: return Outcome.of(try await store.readerAttached(reader, epoch: LinkEpoch(1)).0).0
            }
        }
    }

    @Test("every event in every state: same decision, actions, state and history")
    func everyCell() async throws {
        try await withOwnershipDatabase { client in
            let fixtures = OwnershipFixtures(client: client)
            try await fixtures.seedAccount()
            let store = OwnershipStore(client: client)
            var cells: [Cell] = []
            for (s, state) in Self.stateNames.enumerated() {
                for (e, event) in Self.eventNames.enumerated() {
                    let tag = "\(s)-\(e)"
                    cells.append(
                        Cell(
                            state: state, event: event, reader: ReaderID("tmr_\(tag)"),
                            ownerA: ReaderOwner(session: SessionID("A-\(tag)"), lane: LaneLabel("Till 1")),
                            ownerB: ReaderOwner(session: SessionID("B-\(tag)"), lane: LaneLabel("Till 2"))
                        )
                    )
                }
            }
            for cell in cells { try await cell.prepare(fixtures) }
            for cell in cells {
                var machine = cell.machine()
                let historyBefore = try await fixtures.history(cell.reader)
                let (expected, expectedHistory) = cell.runMachine(&machine)
                let actual = try await cell.runStore(store, fixtures)
                let where_ = "\(cell.state) | \(cell.event)"
                #expect(actual == expected, "\(where_)")
                // The state after, as stored.
                let record = try await store.ownership(of: cell.reader)
                if case .unknown = machine.link {
                    #expect(record == nil, "\(where_)")
                } else if let record {
                    #expect(record.owner == machine.owner, "\(where_): owner")
                    #expect(record.generation == machine.generation, "\(where_): generation")
                    #expect(record.commandInProgress == machine.commandInProgress, "\(where_): command")
                    switch machine.link {
                    case .online(let epoch): #expect(record.online && record.epoch == epoch, "\(where_): link")
                    case .offline(let epoch): #expect(!record.online && record.epoch == epoch, "\(where_): link")
                    case .unknown: break
                    }
                } else {
                    Issue.record("\(where_): no ownership row")
                }
                // Exactly the history row the machine asked for, and nothing else.
                let historyAfter = try await fixtures.history(cell.reader)
                let added = historyAfter.dropFirst(historyBefore.count)
                if let expectedHistory {
                    #expect(added.count == 1, "\(where_): history rows")
                    if let row = added.first {
                        #expect(row.reason == expectedHistory.reason.rawValue, "\(where_): history reason")
                        #expect(row.generation == expectedHistory.generation.rawValue, "\(where_): history generation")
                        #expect(row.from == expectedHistory.from?.session.rawValue, "\(where_): history from")
                        #expect(row.to == expectedHistory.to?.session.rawValue, "\(where_): history to")
                    }
                } else {
                    #expect(added.isEmpty, "\(where_): no history row expected")
                }
            }
        }
    }
}

/// Spellings of results that both sides share, with the history event the machine asked for.
enum Outcome {
    static func history(_ actions: [OwnershipAction]) -> OwnershipHistoryEvent? {
        for case .recordHistory(let event) in actions { return event }
        return nil
    }

    static func session(_ owner: ReaderOwner) -> String { String(owner.session.rawValue.prefix(1)) }

    static func actions(_ actions: [OwnershipAction]) -> String {
        actions.compactMap { action -> String? in
            switch action {
            case .notifyDisplaced(_, let reason, let lane): "notify(\(reason.rawValue),\(lane?.rawValue ?? "-"))"
            case .failNextCommand(_, let refusal): "fail(\(refusal.rawValue))"
            case .cancelCommand(let command): "cancel(\(command.command.rawValue))"
            case .recordHistory: nil
            }
        }.joined(separator: " ")
    }

    static func of(_ result: ConnectResult) -> (String, OwnershipHistoryEvent?) {
        switch result {
        case .granted(.connected, let generation, let list): ("granted connected g\(generation) \(actions(list))", history(list))
        case .granted(.replaced(let owner), let generation, let list):
            ("granted replaced(\(session(owner))) g\(generation) \(actions(list))", history(list))
        case .granted(.alreadyOwner, let generation, let list): ("granted already g\(generation) \(actions(list))", history(list))
        case .refused(let refusal, let list): ("refused \(refusal.rawValue)", history(list))
        }
    }

    static func of(_ result: CommandStartResult) -> String {
        switch result {
        case .proceed: "proceed"
        case .refused(let refusal): "refused \(refusal.rawValue)"
        }
    }

    static func of(_ result: CommandFinishResult) -> String {
        switch result {
        case .finished: "finished"
        case .ignored(let refusal): "ignored \(refusal?.rawValue ?? "")"
        }
    }

    static func of(_ result: ReleaseResult) -> (String, OwnershipHistoryEvent?) {
        switch result {
        case .released(let owner, let generation, let list): ("released(\(session(owner))) g\(generation) \(actions(list))", history(list))
        case .unchanged(let refusal): ("unchanged \(refusal?.rawValue ?? "")", nil)
        case .refused(let refusal): ("refused \(refusal.rawValue)", nil)
        }
    }

    static func of(_ result: LinkEventResult) -> (String, OwnershipHistoryEvent?) {
        switch result {
        case .updated: ("updated", nil)
        case .ownerLost(let owner, let generation, let list): ("lost(\(session(owner))) g\(generation) \(actions(list))", history(list))
        case .ignoredStale: ("stale", nil)
        case .unknownReader: ("unknown", nil)
        }
    }
}
