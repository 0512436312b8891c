import GatewayClient
import GatewayWire
import Testing

extension ClusterTests {
    /// 20 lanes spread over the three replicas (straight to their ports) connect to one
    /// reader at once, round after round.
    ///
    /// Idle rounds: the connects are serialized by PostgreSQL into one chain of generations;
    /// exactly one lane owns the reader at the end (the one PostgreSQL names, the only one
    /// whose command works) and every other winner is told (`disconnected(replaced)` with
    /// the generation it held). Busy rounds: the owner is mid-collect and the 19 others ask
    /// with failIfInUse true: every one is refused with READER_BUSY, the collect completes,
    /// the owner and generation stay. The history has no gap after every round.
    @Test func takeoverRaceAcrossReplicas() async throws {
        let laneCount = 20
        let rounds = 6
        try await ClusterFixture.run { cluster in
            let reader = try await cluster.attachReaders(1, ports: [cluster.replicas[0].port], prefix: "RACE", holdCollects: true)[0]
            let readerID = try #require(reader.readerID)
            var lanes: [ClusterLane] = []
            for index in 0..<laneCount {
                let replica = cluster.replicas[index % cluster.replicas.count]
                lanes.append(try await cluster.lane("Lane \(index + 1)", port: replica.port))
            }
            var owner: Int?
            for round in 1...rounds {
                let busy = round % 2 == 0
                let before = try await cluster.database.ownership()[readerID]
                let startGeneration = UInt64(before?.generation ?? 0)
                let disconnectsBefore = lanes.map { $0.disconnects.count }
                var collect: Task<PaymentIntent, any Error>?
                if busy, let owner {
                    let lane = lanes[owner]
                    collect = Task { try await lane.collect() }
                    try cluster.require(await eventuallyIgnoringErrors { reader.isHoldingCollect }, "round \(round): the owner's collect never reached the reader")
                }
                let contenders = lanes.indices.filter { $0 != (busy ? owner : nil) }
                // Discover first, so the connects themselves leave together.
                var discovered: [Int: DiscoveredReader] = [:]
                for index in contenders {
                    let found = try await lanes[index].discover(location: cluster.location)
                    let match = try #require(found.first { $0.id == readerID }, "\(lanes[index].label) did not discover the reader")
                    discovered[index] = match
                }
                let targets = discovered
                let results = await withTaskGroup(of: (Int, Result<ReaderConnectionDetails, TerminalError>).self) { group in
                    for index in contenders {
                        let lane = lanes[index]
                        group.addTask {
                            do {
                                return (index, .success(try await lane.connect(targets[index]!, failIfInUse: busy || index % 2 == 0)))
                            } catch let error as TerminalError {
                                return (index, .failure(error))
                            } catch {
                                return (index, .failure(TerminalError(RPCError(.internal, "\(error)"))))
                            }
                        }
                    }
                    var results: [Int: Result<ReaderConnectionDetails, TerminalError>] = [:]
                    for await (index, result) in group { results[index] = result }
                    return results
                }
                var winners: [(index: Int, generation: UInt64)] = []
                var refused = 0
                for (index, result) in results {
                    switch result {
                    case .success(let response): winners.append((index, response.generation))
                    case .failure(let error):
                        refused += 1
                        cluster.expect(error.code == .readerBusy, "round \(round): \(lanes[index].label) failed with \(error)")
                    }
                }
                winners.sort { $0.generation < $1.generation }
                let row = try await cluster.database.ownership()[readerID]

                if busy, let owner, let collect {
                    // Everyone refused; the collect goes on and completes for the owner.
                    cluster.expect(winners.isEmpty, "round \(round): \(winners.map { lanes[$0.index].label }) took a reader mid-collect with failIfInUse true")
                    reader.finishCollect()
                    let collected = try await collect.value
                    cluster.expect(collected.paymentMethod?.last4 == "4242", "round \(round): the owner's collect did not complete: \(collected)")
                    cluster.expect(row?.session == lanes[owner].sessionID && row?.generation == Int64(startGeneration), "round \(round): owner changed while busy: \(String(describing: row))")
                    cluster.expect(lanes[owner].disconnects.count == disconnectsBefore[owner], "round \(round): the owner was told it lost the reader")
                    let history = try await cluster.database.history(readerID)
                    let refusals = history.suffix(contenders.count).filter { $0.reason == "refused_busy" }.count
                    cluster.expect(refusals == contenders.count, "round \(round): \(refusals) refused_busy entries for \(contenders.count) refusals")
                    try await lanes[owner].display()
                    print("cluster: takeover round \(round) (reader mid-collect): \(refused) of \(contenders.count) connects refused READER_BUSY, owner \(lanes[owner].label) kept it and its collect completed")
                } else {
                    try cluster.require(!winners.isEmpty, "round \(round): nobody got the reader")
                    // One chain of generations, no two lanes with the same one, no gap.
                    let expected = Array((startGeneration + 1)...(startGeneration + UInt64(winners.count)))
                    cluster.expect(winners.map(\.generation) == expected, "round \(round): generations \(winners.map(\.generation)), expected \(expected)")
                    let last = winners.last!
                    cluster.expect(row?.session == lanes[last.index].sessionID, "round \(round): PostgreSQL names \(String(describing: row)), the last winner is \(lanes[last.index].label)")
                    // Every earlier winner is told that it lost the reader, with its generation.
                    let losers = winners.dropLast()
                    _ = await eventuallyIgnoringErrors(timeout: .seconds(8)) {
                        losers.allSatisfy { lanes[$0.index].disconnects.count > disconnectsBefore[$0.index] }
                    }
                    for loser in losers {
                        let lane = lanes[loser.index]
                        let told = lane.disconnects.count > disconnectsBefore[loser.index]
                        let info = lane.disconnects.last
                        cluster.expect(told && info?.reason == .replaced, "round \(round): \(lane.label) (generation \(loser.generation)) was not told: \(String(describing: info))")
                        if told { cluster.expect(info?.generation == loser.generation, "round \(round): \(lane.label) told about generation \(info?.generation ?? 0), held \(loser.generation)") }
                    }
                    // Only the owner can command the reader.
                    try await lanes[last.index].display()
                    for loser in losers.suffix(3) {
                        do {
                            try await lanes[loser.index].display()
                            cluster.expect(false, "round \(round): \(lanes[loser.index].label) still commands the reader after losing it")
                        } catch let error as TerminalError {
                            cluster.expect(
                                error.code == .notConnectedToReader || error.code == .readerConnectedToAnotherDevice,
                                "round \(round): \(lanes[loser.index].label): \(error)"
                            )
                        }
                    }
                    print("cluster: takeover round \(round) (reader idle): \(winners.count) of \(contenders.count) connects granted in one chain (generations \(expected.first!)…\(expected.last!)), \(refused) refused, owner \(lanes[last.index].label), every other winner told")
                    owner = last.index
                }
                let problems = try await cluster.database.historyProblems(readerID, current: row)
                cluster.expect(problems.isEmpty, "round \(round): history \(problems)")
                // After a busy round the owner lets go; the next idle round starts from a free reader.
                if busy, let current = owner {
                    try await lanes[current].terminal.disconnectReader()
                    owner = nil
                }
            }
        }
    }
}
