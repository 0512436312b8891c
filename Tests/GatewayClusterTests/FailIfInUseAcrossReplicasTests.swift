import GatewayClient
import GatewayWire
import Testing

/// The four cells of the failIfInUse table (reader idle or mid-collect, failIfInUse false
/// or true) with lane A on r1, lane B on r2 and the reader on r3, each connected straight
/// to its replica's port: every decision and every notice crosses replicas.
enum FailIfInUseCell: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case idleFailIfInUseFalse, idleFailIfInUseTrue, busyFailIfInUseFalse, busyFailIfInUseTrue

    var busy: Bool { self == .busyFailIfInUseFalse || self == .busyFailIfInUseTrue }
    var failIfInUse: Bool { self == .idleFailIfInUseTrue || self == .busyFailIfInUseTrue }
    var testDescription: String { rawValue }
}

extension ClusterTests {
    @Test(arguments: FailIfInUseCell.allCases)
    func failIfInUseAcrossThreeReplicas(cell: FailIfInUseCell) async throws {
        try await ClusterFixture.run { cluster in
            let (r1, r2, r3) = (cluster.replicas[0], cluster.replicas[1], cluster.replicas[2])
            let reader = try await cluster.attachReaders(1, ports: [r3.port], prefix: "FIU", holdCollects: true)[0]
            let readerID = try #require(reader.readerID)
            let laneA = try await cluster.lane("Lane A", port: r1.port)
            let laneB = try await cluster.lane("Lane B", port: r2.port)

            let first = try await laneA.connect(readerID, location: cluster.location, failIfInUse: true)
            cluster.expect(!first.replacedOtherSession, "the first connect replaced someone")
            try await laneA.display()

            var collect: Task<PaymentIntent, any Error>?
            if cell.busy {
                collect = Task { try await laneA.collect() }
                try cluster.require(await eventuallyIgnoringErrors { reader.isHoldingCollect }, "the collect never reached the reader on r3")
                // The busy state must be visible to r2's arbitration: it is in PostgreSQL.
                try cluster.require(
                    await eventuallyIgnoringErrors { try await cluster.withAdmin(port: r2.port) { try await $0.getReader(readerID).ownership?.inTransaction == true } },
                    "r2 never saw the reader in a transaction"
                )
            }

            if cell.busy && cell.failIfInUse {
                // Refused: the collect continues and completes for lane A, A keeps the reader.
                do {
                    try await laneB.connect(readerID, location: cluster.location, failIfInUse: true)
                    cluster.expect(false, "lane B took a busy reader with failIfInUse true")
                } catch let error as TerminalError {
                    cluster.expect(error.code == .readerBusy, "lane B: expected readerBusy, got \(error)")
                }
                reader.finishCollect()
                let collected = try await collect!.value
                cluster.expect(collected.paymentMethod?.last4 == "4242", "the collect did not complete: \(collected)")
                cluster.expect(laneA.disconnects.isEmpty, "lane A was told it lost the reader: \(laneA.disconnects)")
                try await laneA.display()
                let row = try await cluster.database.ownership()[readerID]
                cluster.expect(row?.session == laneA.sessionID && row?.generation == Int64(first.generation), "owner changed: \(String(describing: row))")
                let history = try await cluster.database.history(readerID)
                cluster.expect(history.last?.reason == "refused_busy", "no refused_busy in history: \(history)")
            } else {
                // Taken over: B owns it, A is told (event before the failure), A's collect ends.
                let taken = try await laneB.connect(readerID, location: cluster.location, failIfInUse: cell.failIfInUse)
                cluster.expect(taken.replacedOtherSession, "lane B's connect did not replace lane A")
                cluster.expect(taken.generation == first.generation + 1, "generation \(taken.generation) after \(first.generation)")
                if let collect {
                    do {
                        _ = try await collect.value
                        cluster.expect(false, "lane A's collect completed after the takeover")
                    } catch let error as TerminalError {
                        cluster.expect(error.code == .readerConnectedToAnotherDevice, "lane A's collect: \(error)")
                    }
                    cluster.expect(await eventuallyIgnoringErrors { !reader.isHoldingCollect }, "the reader on r3 was not told to cancel the collect")
                }
                let told = await laneA.waitForDisconnect(timeout: .seconds(5))
                cluster.expect(told?.reason == .replaced, "lane A on r1 was not told: \(String(describing: told))")
                cluster.expect(told?.takenByLaneLabel == "Lane B", "lane A's event names \(told?.takenByLaneLabel ?? "nobody")")
                do {
                    try await laneA.display()
                    cluster.expect(false, "lane A still commands the reader")
                } catch let error as TerminalError {
                    cluster.expect(
                        error.code == .notConnectedToReader || error.code == .readerConnectedToAnotherDevice,
                        "lane A's command after the takeover: \(error)"
                    )
                }
                try await laneB.display()
                let row = try await cluster.database.ownership()[readerID]
                cluster.expect(row?.session == laneB.sessionID, "owner in PostgreSQL: \(String(describing: row))")
                cluster.expect(row?.generation == Int64(taken.generation), "generation in PostgreSQL: \(String(describing: row))")
            }
            let problems = try await cluster.database.historyProblems(readerID, current: try await cluster.database.ownership()[readerID])
            cluster.expect(problems.isEmpty, "history: \(problems)")
        }
    }
}
