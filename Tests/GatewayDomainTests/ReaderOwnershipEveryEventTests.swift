import Foundation
import GatewayDomain
import Testing

/// Every event in every state, as one table: the result of the event and the state after it.
///
/// States: `unknown` (not registered), `offline` (registered, link down, no owner), `free`
/// (online, nobody owns it), `idle` (A owns it at generation 3), `cart` (A owns it and put a
/// cart on the display), `busy` (A owns it and runs collectPaymentMethod).
/// State spelling: link and epoch, owner, generation, transaction command and its session.
@Suite("Ownership: every event in every state")
struct ReaderOwnershipEveryEventTests {
    static let states: [String: ReaderOwnershipStateMachine] = {
        var cart = Fixture.ownedByA(midTransaction: false)
        _ = cart.commandStarted(.setReaderDisplay, session: Fixture.sessionA, generation: OwnershipGeneration(3))
        return [
            "unknown": ReaderOwnershipStateMachine(reader: Fixture.reader, link: .unknown),
            "offline": ReaderOwnershipStateMachine(reader: Fixture.reader, link: .offline(LinkEpoch(1)), generation: OwnershipGeneration(3)),
            "free": ReaderOwnershipStateMachine(reader: Fixture.reader, link: .online(LinkEpoch(1)), generation: OwnershipGeneration(3)),
            "idle": Fixture.ownedByA(midTransaction: false),
            "cart": cart,
            "busy": Fixture.ownedByA(midTransaction: true),
        ]
    }()

    static let g2 = OwnershipGeneration(2)
    static let g3 = OwnershipGeneration(3)

    /// Each event applied to a machine, summarised.
    static let events: [String: @Sendable (inout ReaderOwnershipStateMachine) -> String] = [
        "connect A": { Summary.result($0.connect(Fixture.connect(Fixture.ownerA, failIfInUse: false))) },
        "connect A failIfInUse": { Summary.result($0.connect(Fixture.connect(Fixture.ownerA, failIfInUse: true))) },
        "connect B": { Summary.result($0.connect(Fixture.connect(Fixture.ownerB, failIfInUse: false))) },
        "connect B failIfInUse": { Summary.result($0.connect(Fixture.connect(Fixture.ownerB, failIfInUse: true))) },
        "connect B stale": {
            Summary.result($0.connect(Fixture.connect(Fixture.ownerB, failIfInUse: false, discovery: DiscoveryStateMachine.DiscoveryID(4))))
        },
        "collect A g3": { Summary.result($0.commandStarted(.collectPaymentMethod, session: Fixture.sessionA, generation: g3)) },
        "collect A g2": { Summary.result($0.commandStarted(.collectPaymentMethod, session: Fixture.sessionA, generation: g2)) },
        "collect B g3": { Summary.result($0.commandStarted(.collectPaymentMethod, session: Fixture.sessionB, generation: g3)) },
        "display A g3": { Summary.result($0.commandStarted(.setReaderDisplay, session: Fixture.sessionA, generation: g3)) },
        "finish collect A g3": { Summary.result($0.commandFinished(.collectPaymentMethod, session: Fixture.sessionA, generation: g3)) },
        "finish confirm A g3": { Summary.result($0.commandFinished(.confirmPaymentIntent, session: Fixture.sessionA, generation: g3)) },
        "finish collect A g2": { Summary.result($0.commandFinished(.collectPaymentMethod, session: Fixture.sessionA, generation: g2)) },
        "disconnect A g3": { Summary.result($0.disconnect(session: Fixture.sessionA, generation: g3)) },
        "disconnect A g2": { Summary.result($0.disconnect(session: Fixture.sessionA, generation: g2)) },
        "disconnect B g3": { Summary.result($0.disconnect(session: Fixture.sessionB, generation: g3)) },
        "expire A": { Summary.result($0.sessionExpired(Fixture.sessionA)) },
        "expire B": { Summary.result($0.sessionExpired(Fixture.sessionB)) },
        "admin release": { Summary.result($0.adminRelease()) },
        "lost e1": { Summary.result($0.readerLost(epoch: LinkEpoch(1))) },
        "lost e0": { Summary.result($0.readerLost(epoch: LinkEpoch(0))) },
        "attach e2": { Summary.result($0.readerAttached(epoch: LinkEpoch(2))) },
        "attach e1": { Summary.result($0.readerAttached(epoch: LinkEpoch(1))) },
    ]

    /// state | event | result | state after ("=" means unchanged).
    static let table = """
    unknown | connect A             | refused unknown_reader                   | =
    unknown | connect A failIfInUse | refused unknown_reader                   | =
    unknown | connect B             | refused unknown_reader                   | =
    unknown | connect B failIfInUse | refused unknown_reader                   | =
    unknown | connect B stale       | refused unknown_reader                   | =
    unknown | collect A g3          | refused unknown_reader                   | =
    unknown | collect A g2          | refused unknown_reader                   | =
    unknown | collect B g3          | refused unknown_reader                   | =
    unknown | display A g3          | refused unknown_reader                   | =
    unknown | finish collect A g3   | ignored unknown_reader                   | =
    unknown | finish confirm A g3   | ignored unknown_reader                   | =
    unknown | finish collect A g2   | ignored unknown_reader                   | =
    unknown | disconnect A g3       | refused unknown_reader                   | =
    unknown | disconnect A g2       | refused unknown_reader                   | =
    unknown | disconnect B g3       | refused unknown_reader                   | =
    unknown | expire A              | unchanged                                | =
    unknown | expire B              | unchanged                                | =
    unknown | admin release         | unchanged unknown_reader                 | =
    unknown | lost e1               | unknown                                  | =
    unknown | lost e0               | unknown                                  | =
    unknown | attach e2             | unknown                                  | =
    unknown | attach e1             | unknown                                  | =

    offline | connect A             | refused reader_offline                   | =
    offline | connect A failIfInUse | refused reader_offline                   | =
    offline | connect B             | refused reader_offline                   | =
    offline | connect B failIfInUse | refused reader_offline                   | =
    offline | connect B stale       | refused stale_discovery                  | =
    offline | collect A g3          | refused reader_offline                   | =
    offline | collect A g2          | refused connected_to_another_session     | =
    offline | collect B g3          | refused reader_offline                   | =
    offline | display A g3          | refused reader_offline                   | =
    offline | finish collect A g3   | ignored reader_offline                   | =
    offline | finish confirm A g3   | ignored reader_offline                   | =
    offline | finish collect A g2   | ignored connected_to_another_session     | =
    offline | disconnect A g3       | refused reader_offline                   | =
    offline | disconnect A g2       | refused connected_to_another_session     | =
    offline | disconnect B g3       | refused reader_offline                   | =
    offline | expire A              | unchanged                                | =
    offline | expire B              | unchanged                                | =
    offline | admin release         | unchanged not_connected                  | =
    offline | lost e1               | stale                                    | =
    offline | lost e0               | stale                                    | =
    offline | attach e2             | updated                                  | on2 - g3 -
    offline | attach e1             | stale                                    | =

    free    | connect A             | granted connected g4                     | on1 A g4 -
    free    | connect A failIfInUse | granted connected g4                     | on1 A g4 -
    free    | connect B             | granted connected g4                     | on1 B g4 -
    free    | connect B failIfInUse | granted connected g4                     | on1 B g4 -
    free    | connect B stale       | refused stale_discovery                  | =
    free    | collect A g3          | refused not_connected                    | =
    free    | collect A g2          | refused connected_to_another_session     | =
    free    | collect B g3          | refused not_connected                    | =
    free    | display A g3          | refused not_connected                    | =
    free    | finish collect A g3   | ignored not_connected                    | =
    free    | finish confirm A g3   | ignored not_connected                    | =
    free    | finish collect A g2   | ignored connected_to_another_session     | =
    free    | disconnect A g3       | refused not_connected                    | =
    free    | disconnect A g2       | refused connected_to_another_session     | =
    free    | disconnect B g3       | refused not_connected                    | =
    free    | expire A              | unchanged                                | =
    free    | expire B              | unchanged                                | =
    free    | admin release         | unchanged not_connected                  | =
    free    | lost e1               | updated                                  | off1 - g3 -
    free    | lost e0               | stale                                    | =
    free    | attach e2             | updated                                  | on2 - g3 -
    free    | attach e1             | stale                                    | =

    idle    | connect A             | granted already g3                       | =
    idle    | connect A failIfInUse | granted already g3                       | =
    idle    | connect B             | granted replaced(A) g4                   | on1 B g4 -
    idle    | connect B failIfInUse | granted replaced(A) g4                   | on1 B g4 -
    idle    | connect B stale       | refused stale_discovery                  | =
    idle    | collect A g3          | proceed                                  | on1 A g3 collect/A
    idle    | collect A g2          | refused connected_to_another_session     | =
    idle    | collect B g3          | refused not_connected                    | =
    idle    | display A g3          | proceed                                  | =
    idle    | finish collect A g3   | ignored                                  | =
    idle    | finish confirm A g3   | ignored                                  | =
    idle    | finish collect A g2   | ignored connected_to_another_session     | =
    idle    | disconnect A g3       | released(A) g4                           | on1 - g4 -
    idle    | disconnect A g2       | refused connected_to_another_session     | =
    idle    | disconnect B g3       | refused not_connected                    | =
    idle    | expire A              | released(A) g4                           | on1 - g4 -
    idle    | expire B              | unchanged                                | =
    idle    | admin release         | released(A) g4                           | on1 - g4 -
    idle    | lost e1               | lost(A) g4                               | off1 - g4 -
    idle    | lost e0               | stale                                    | =
    idle    | attach e2             | updated                                  | on2 A g3 -
    idle    | attach e1             | stale                                    | =

    busy    | connect A             | granted already g3                       | =
    busy    | connect A failIfInUse | granted already g3                       | =
    busy    | connect B             | granted replaced(A) g4                   | on1 B g4 -
    busy    | connect B failIfInUse | refused reader_busy                      | =
    busy    | connect B stale       | refused stale_discovery                  | =
    busy    | collect A g3          | refused reader_busy                      | =
    busy    | collect A g2          | refused connected_to_another_session     | =
    busy    | collect B g3          | refused not_connected                    | =
    busy    | display A g3          | proceed                                  | =
    busy    | finish collect A g3   | finished                                 | on1 A g3 -
    busy    | finish confirm A g3   | ignored                                  | =
    busy    | finish collect A g2   | ignored connected_to_another_session     | =
    busy    | disconnect A g3       | released(A) g4                           | on1 - g4 -
    busy    | disconnect A g2       | refused connected_to_another_session     | =
    busy    | disconnect B g3       | refused not_connected                    | =
    busy    | expire A              | released(A) g4                           | on1 - g4 -
    busy    | expire B              | unchanged                                | =
    busy    | admin release         | released(A) g4                           | on1 - g4 -
    busy    | lost e1               | lost(A) g4                               | off1 - g4 -
    busy    | lost e0               | stale                                    | =
    busy    | attach e2             | updated                                  | on2 A g3 collect/A
    busy    | attach e1             | stale                                    | =
    """

    struct Cell: CustomTestStringConvertible, Sendable {
        var state: String
        var event: String
        var result: String
        var after: String
        var testDescription: String { "\(state) | \(event)" }
    }

    static let cells: [Cell] = {
        var cells: [Cell] = []
        for line in table.split(separator: "\n") where !line.trimmingCharacters(in: .whitespaces).isEmpty {
            let fields = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            cells.append(Cell(state: fields[0], event: fields[1], result: fields[2], after: fields[3]))
            // A cart on the display behaves exactly like an idle reader: every idle row holds for it.
            if fields[0] == "idle" {
                cells.append(Cell(state: "cart", event: fields[1], result: fields[2], after: fields[3]))
            }
        }
        return cells
    }()

    @Test("the table names every state and every event exactly once")
    func tableIsComplete() {
        var seen: [String: Int] = [:]
        for cell in Self.cells { seen["\(cell.state) | \(cell.event)", default: 0] += 1 }
        for state in Self.states.keys {
            for event in Self.events.keys {
                #expect(seen["\(state) | \(event)"] == 1, "missing or repeated: \(state) | \(event)")
            }
        }
        #expect(seen.count == Self.states.count * Self.events.count)
    }

    @Test("each cell", arguments: cells)
    func cell(_ cell: Cell) throws {
        var machine = try #require(Self.states[cell.state])
        let event = try #require(Self.events[cell.event])
        let before = Summary.state(machine)
        let result = event(&machine)
        #expect(result == cell.result)
        #expect(Summary.state(machine) == (cell.after == "=" ? before : cell.after))
    }
}
