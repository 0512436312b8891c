import GatewayClient
import GatewayWire
import Testing

extension ClusterTests {
    /// 20 lanes spread over the three replicas (straight to their ports) connect to one
    /// reader at once, round after round: the connects are serialized by PostgreSQL into a
    /// chain of generations, exactly one lane owns the reader at the end of each round (the
    /// one PostgreSQL names; the only one whose command works), every other lane was told
    /// (a `disconnected(replaced)` event for the one it held, or a refusal), and the history
    /// has no gap.
    @Test func takeoverRaceAcrossReplicas() async throws {
        let laneCount = 20
        let rounds = 4
        try await ClusterFixture.run { cluster in
            let reader = try await cluster.attachReaders(1, ports: [cluster.replicas[0].port], prefix: "RACE")[0]
            let readerID = try #require(reader.readerID)
            var lanes: [ClusterLane] = []
            for index in 0..<laneCount {
                let replica = cluster.replicas[index % cluster.replicas.count]
                lanes.append(try await cluster.lane("Lane \(index + 1)", port: replica.port))
            }
            for round in 1...rounds {
                let before = try await cluster.database.ownership()[readerID]
                let startGeneration = UInt64(before?.generation ?? 0)
                let disconnectsBefore = lanes.map { $0.disconnects.count }
                // Discover first, so the connects themselves leave together.
                var discovered: [DiscoveredReader] = []
                for lane in lanes {
                    let found = try await lane.terminal.discoverReaders(locationID: cluster.location)
                    discovered.append(try #require(found.first { $0.id == readerID }, "\(lane.label) did not discover the reader"))
                }
                let targets = discovered
                let results = await withTaskGroup(of: (Int, Result<ReaderGatewayV1.ConnectReaderResponse, RPCError>).self) { group in
                    for (index, lane) in lanes.enumerated() {
                        group.addTask {
                            do {
                                return (index, .success(try await lane.terminal.connectReader(targets[index], failIfInUse: index % 2 == 0)))
                            } catch let error as RPCError {
                                return (index, .failure(error))
                            } catch {
                                return (index, .failure(RPCError(.internal, "\(error)")))
                            }
                        }
                    }
                    var results: [Int: Result<ReaderGatewayV1.ConnectReaderResponse, RPCError>] = [:]
                    for await (index, result) in group { results[index] = result }
                    return results
                }
                var winners: [(index: Int, generation: UInt64)] = []
                for (index, result) in results {
                    switch result {
                    case .success(let response): winners.append((index, response.generation))
                    case .failure(let error):
                        cluster.expect(error.reason == .readerBusy, "round \(round): \(lanes[index].label) failed with \(error)")
                    }
                }
                winners.sort { $0.generation < $1.generation }
                try cluster.require(!winners.isEmpty, "round \(round): nobody got the reader")
                // One chain of generations, no two lanes with the same one, no gap.
                let expected = Array((startGeneration + 1)...(startGeneration + UInt64(winners.count)))
                cluster.expect(winners.map(\.generation) == expected, "round \(round): generations \(winners.map(\.generation)), expected \(expected)")
                let owner = winners.last!
                let row = try await cluster.database.ownership()[readerID]
                cluster.expect(row?.session == lanes[owner.index].sessionID, "round \(round): PostgreSQL names \(String(describing: row)), the last winner is \(lanes[owner.index].label)")
                // Every earlier winner is told that it lost the reader, with its generation.
                let losers = winners.dropLast()
                _ = await eventually(timeout: .seconds(8)) {
                    losers.allSatisfy { lanes[$0.index].disconnects.count > disconnectsBefore[$0.index] }
                }
                for winner in losers {
                    let lane = lanes[winner.index]
                    let told = lane.disconnects.count > disconnectsBefore[winner.index]
                    let info = lane.disconnects.last
                    cluster.expect(told && info?.reason == .replaced, "round \(round): \(lane.label) (generation \(winner.generation)) was not told: \(String(describing: info))")
                    if told { cluster.expect(info?.generation == winner.generation, "round \(round): \(lane.label) told about generation \(info?.generation ?? 0), held \(winner.generation)") }
                }
                // Only the owner can command the reader.
                try await lanes[owner.index].display()
                for winner in winners.dropLast().suffix(3) {
                    do {
                        try await lanes[winner.index].display()
                        cluster.expect(false, "round \(round): \(lanes[winner.index].label) still commands the reader after losing it")
                    } catch let error as RPCError {
                        cluster.expect(
                            error.reason == .notConnectedToReader || error.reason == .readerConnectedToAnotherSession,
                            "round \(round): \(lanes[winner.index].label): \(error)"
                        )
                    }
                }
                let problems = try await cluster.database.historyProblems(readerID, current: row)
                cluster.expect(problems.isEmpty, "round \(round): history \(problems)")
                print("cluster: takeover round \(round): \(winners.count) of \(laneCount) connects granted in one chain, \(laneCount - winners.count) refused, owner \(lanes[owner.index].label)")
                // The owner lets go; the next round starts from a free reader.
                try await lanes[owner.index].terminal.disconnectReader()
            }
        }
    }
}
