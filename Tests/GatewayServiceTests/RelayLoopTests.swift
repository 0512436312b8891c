import GatewayTestKit
import Foundation
import GatewayWire
import Testing

/// A reader's connection moves to the event loop of its owner's connection (so the relay
/// between them stays on one thread); commands in flight across the move keep their order
/// and nothing is lost, and ownership changes work as before on moved connections.
@Suite("relays across event loops")
struct RelayLoopTests {
    @Test func readerConnectionsFollowTheirOwnersAndPipelinedCommandsArriveInOrder() async throws {
        let harness = try await GatewayHarness.start()
        let admin = try await harness.admin()
        let location = try await admin.createLocation("Loops")
        // 16 pairs over the gateway's 2 loops: some reader and lane are (all but certainly) apart.
        let serials = (1...16).map { String(format: "WSCLOOP%05d", $0) }
        let registered = try await admin.registerSerials(serials, prefix: "Loop", location: location)
        var readers: [TestReader] = []
        for serial in serials {
            let reader = try await TestReader.attach(harness, serial: serial, certificate: try harness.readerCertificate(serial: serial))
            #expect(await reader.waitUntilRegistered() != nil)
            readers.append(reader)
        }
        let token = try await admin.connectionToken(location: location)
        var lanes: [TestLane] = []
        for (index, reader) in registered.enumerated() {
            let lane = try await TestLane.open(harness, connectionToken: token, label: "Lane \(index + 1)")
            _ = try await lane.discoverAndConnect(reader.id, location: location, failIfInUse: true)
            lanes.append(lane)
        }

        // Each lane pipelines 20 commands on its connection, three times: the first relay
        // moves the reader's connection while the others are in flight.
        let rounds = 3, perRound = 20
        for _ in 0..<rounds {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for lane in lanes {
                    for _ in 0..<perRound { group.addTask { try await lane.setDisplay() } }
                }
                try await group.waitForAll()
            }
        }
        let moves = harness.metrics.connectionMoves.unlabeled.value
        #expect(moves >= 1, "no reader connection moved to its owner's loop")
        #expect(moves <= UInt64(readers.count), "a reader connection moved more than once for one owner: \(moves) moves")
        for (index, reader) in readers.enumerated() {
            let ids = reader.commands.compactMap { command -> UInt64? in
                if case .setDisplay? = command.command { command.commandID } else { nil }
            }
            #expect(ids.count == rounds * perRound, "reader \(index) got \(ids.count) display commands")
            #expect(ids == ids.sorted() && Set(ids).count == ids.count, "reader \(index) got its commands out of order: \(ids)")
        }

        // A takeover of a moved reader from another connection: the displaced lane hears
        // first, its next command fails, the new owner's commands and a collect go through.
        let taker = try await TestLane.open(harness, connectionToken: token, label: "Lane 17")
        _ = try await taker.discoverAndConnect(registered[0].id, location: location, failIfInUse: false)
        await expectFailure(.readerConnectedToAnotherSession) { try await lanes[0].setDisplay() }
        #expect(lanes[0].eventArrived(before: .readerConnectedToAnotherSession))
        #expect(await lanes[0].waitForDisconnect()?.reason == .replaced)
        for _ in 0..<5 { try await taker.setDisplay() }
        async let collected = taker.collect()
        #expect(await eventually { readers[0].isHoldingCollect })
        readers[0].finishCollect()
        #expect(try await collected.paymentMethod != nil)
        await harness.stop()
    }
}
