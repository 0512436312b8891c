import GatewayClient
import GatewayRepositories
import GatewayWire
import GatewayWireClients
import Testing

/// DiscoverReaders' filter and EasyConnect on three replicas, readers attached to r3. The
/// checks of what the gateway answers go through ``SessionProbe``s (raw frames, no recovery);
/// the Swift client's `easyConnect` is checked against PostgreSQL's ownership rows.
extension ClusterTests {
    /// A reader registered at a second location of the account and one of another account:
    /// their serials, which a filter must never reveal.
    private func foreignSerials(_ cluster: ClusterFixture) async throws -> (otherLocation: String, otherAccount: String) {
        let otherLocation = try await cluster.withAdmin { admin in
            let location = try await admin.createLocation(displayName: "Back office")
            return try await admin.registerReaders(serials: ["EZL000001"], labelPrefix: "Back office", locationID: location.id)
        }
        let account = try await cluster.database.withClient { client in try await Accounts.create(name: "another tenant", client: client) }
        let admin = AdminClient(
            connection: GatewayConnection(cluster.channelConfiguration(port: cluster.balancerPort), group: cluster.group), secretKey: account.secretKey
        )
        defer { admin.connection.close() }
        let location = try await admin.createLocation(displayName: "Elsewhere")
        let theirs = try await admin.registerReaders(serials: ["EZA000001"], labelPrefix: "Theirs", locationID: location.id)
        try cluster.require(otherLocation.count == 1 && theirs.count == 1, "registered \(otherLocation.count) and \(theirs.count) foreign readers")
        return (otherLocation[0].serialNumber, theirs[0].id)
    }

    /// The filter on r1 and r2 answers the one reader named (by serial or id) wherever its link
    /// lives, nothing for a reader of another location or account, and INVALID_ARGUMENT for a
    /// filter naming both; EasyConnect of nothing is NOT_FOUND and connects nothing.
    @Test func theDiscoveryFilterAnswersOneReaderOnEveryReplica() async throws {
        try await ClusterFixture.run { cluster in
            let (r1, r2, r3) = (cluster.replicas[0], cluster.replicas[1], cluster.replicas[2])
            let readers = try await cluster.attachReaders(3, ports: [r3.port], prefix: "EZF")
            let wanted = try #require(readers[1].readerID)
            let (otherLocationSerial, otherAccountReader) = try await foreignSerials(cluster)

            for replica in [r1, r2] {
                let probe = try await SessionProbe.connect(to: replica, cluster: cluster)
                defer { probe.close() }
                let token = try await probe.open(token: cluster.token, lane: "Lane \(replica.name)").sessionToken
                let bySerial = try await probe.discover(token, location: cluster.location, serial: readers[1].serial)
                cluster.expect(bySerial.readers.map(\.id) == [wanted], "\(replica.name): the serial filter answered \(bySerial.readers.map(\.id))")
                cluster.expect(bySerial.readers.first?.networkStatus == .online, "\(replica.name): the reader on r3 reads \(String(describing: bySerial.readers.first?.networkStatus))")
                let byID = try await probe.discover(token, location: cluster.location, readerID: wanted)
                cluster.expect(byID.readers.map(\.serialNumber) == [readers[1].serial], "\(replica.name): the id filter answered \(byID.readers.map(\.serialNumber))")
                cluster.expect(byID.discoveryID != bySerial.discoveryID, "\(replica.name): two discoveries answered as \(byID.discoveryID)")

                let otherLocation = try await probe.discover(token, location: cluster.location, serial: otherLocationSerial)
                cluster.expect(otherLocation.readers.isEmpty, "\(replica.name): a reader of another location was answered: \(otherLocation.readers.map(\.id))")
                let otherAccount = try await probe.discover(token, location: "", readerID: otherAccountReader)
                cluster.expect(otherAccount.readers.isEmpty, "\(replica.name): another account's reader was answered: \(otherAccount.readers.map(\.id))")
                let otherAccountSerial = try await probe.discover(token, location: "", serial: "EZA000001")
                cluster.expect(otherAccountSerial.readers.isEmpty, "\(replica.name): another account's serial was answered: \(otherAccountSerial.readers.map(\.id))")

                do {
                    _ = try await probe.discover(token, location: cluster.location, readerID: wanted, serial: readers[1].serial)
                    cluster.expect(false, "\(replica.name): a filter naming both fields was answered")
                } catch let error as RPCError {
                    cluster.expect(error.code == .invalidArgument && error.reason == .invalidRequest, "\(replica.name): both fields: \(error)")
                    cluster.expect(error.message.contains("set exactly one"), "\(replica.name): the message does not say what to do: \(error.message)")
                }
                // EasyConnect's discovery counts against the session's discovery rate limit
                // (a burst of 5 spent above): a session of its own.
                let easyToken = try await probe.open(token: cluster.token, lane: "Lane \(replica.name) easy").sessionToken
                do {
                    try await probe.easyConnect(easyToken, location: cluster.location, serial: otherLocationSerial)
                    cluster.expect(false, "\(replica.name): EasyConnect connected a reader of another location")
                } catch let error as RPCError {
                    cluster.expect(error.code == .notFound && error.reason == .readerNotFound, "\(replica.name): EasyConnect of nothing: \(error)")
                }
                // A reader the filtered answer did not list is not connectable: it was not discovered.
                do {
                    try await probe.connect(token, reader: try #require(readers[0].readerID), discovery: byID.discoveryID)
                    cluster.expect(false, "\(replica.name): a reader outside the filtered answer connected")
                } catch let error as RPCError {
                    cluster.expect(error.reason == .staleDiscovery, "\(replica.name): a reader outside the filtered answer: \(error)")
                }
            }
            let owners = try await cluster.database.ownership()
            cluster.expect(readers.compactMap(\.readerID).allSatisfy { owners[$0]?.session == nil }, "a reader was connected: \(owners)")
        }
    }

    /// EasyConnect across replicas under the failIfInUse table, the reader's link on r3: lane A
    /// (Swift client, r1) easy-connects and collects; lane B (raw frames, r2) is refused with
    /// READER_BUSY with failIfInUse and A keeps the reader and its collect; without it B takes
    /// the reader, A's collect fails and A hears who took it. Then A easy-connects the idle
    /// reader back with failIfInUse (an idle reader is taken either way).
    @Test func easyConnectFollowsTheFailIfInUseTableAcrossReplicas() async throws {
        try await ClusterFixture.run { cluster in
            let (r1, r2, r3) = (cluster.replicas[0], cluster.replicas[1], cluster.replicas[2])
            let reader = try await cluster.attachReaders(1, ports: [r3.port], prefix: "EZC", holdCollects: true)[0]
            let readerID = try #require(reader.readerID)
            let laneA = try await cluster.lane("Lane A", port: r1.port)

            let first = try await laneA.easyConnect(.serialNumber(reader.serial), location: cluster.location, failIfInUse: true)
            cluster.expect(first.reader.id == readerID && !first.replacedOtherSession, "lane A's EasyConnect: \(first)")
            cluster.expect(laneA.terminal.connectedReader?.id == readerID, "the client does not show the reader connected")
            try await laneA.display()
            let firstGeneration = first.generation

            let collect = Task { try await laneA.collect() }
            try cluster.require(await eventuallyIgnoringErrors { reader.isHoldingCollect }, "the collect never reached the reader on r3")
            try cluster.require(
                await eventuallyIgnoringErrors { try await cluster.withAdmin(port: r2.port) { try await $0.getReader(readerID).ownership?.inTransaction == true } },
                "r2 never saw the reader in a transaction"
            )

            let laneB = try await SessionProbe.connect(to: r2, cluster: cluster)
            defer { laneB.close() }
            let tokenB = try await laneB.open(token: cluster.token, lane: "Lane B").sessionToken
            laneB.subscribe(tokenB)
            do {
                try await laneB.easyConnect(tokenB, location: cluster.location, readerID: readerID, failIfInUse: true)
                cluster.expect(false, "lane B's EasyConnect took a busy reader with failIfInUse")
            } catch let error as RPCError {
                cluster.expect(error.reason == .readerBusy && error.code == .aborted, "lane B with failIfInUse: expected READER_BUSY (ABORTED), got \(error)")
            }
            var row = try await cluster.database.ownership()[readerID]
            cluster.expect(row?.session == laneA.sessionID && row?.generation == Int64(firstGeneration), "the refused EasyConnect changed the owner: \(String(describing: row))")
            cluster.expect(reader.isHoldingCollect, "the refused EasyConnect stopped lane A's collect")

            let taken = try await laneB.easyConnect(tokenB, location: cluster.location, serial: reader.serial, failIfInUse: false)
            cluster.expect(taken.connection?.replacedOtherSession == true, "lane B's EasyConnect did not replace lane A: \(taken)")
            cluster.expect(taken.connection?.generation == firstGeneration + 1, "generation \(taken.connection?.generation ?? 0) after \(firstGeneration)")
            do {
                _ = try await collect.value
                cluster.expect(false, "lane A's collect completed after the takeover")
            } catch let error as TerminalError {
                cluster.expect(error.code == .readerConnectedToAnotherDevice, "lane A's collect: \(error)")
            }
            let told = await laneA.waitForDisconnect(timeout: .seconds(5))
            cluster.expect(told?.reason == .replaced && told?.takenByLaneLabel == "Lane B", "lane A on r1 was told: \(String(describing: told))")
            try await laneB.display(tokenB)
            row = try await cluster.database.ownership()[readerID]
            cluster.expect(row?.generation == Int64(firstGeneration + 1) && row?.session != laneA.sessionID, "owner after B's EasyConnect: \(String(describing: row))")

            // Idle now: failIfInUse takes it back.
            let back = try await laneA.easyConnect(.readerID(readerID), location: cluster.location, failIfInUse: true)
            cluster.expect(back.replacedOtherSession, "lane A's EasyConnect of the idle reader: \(back)")
            try await laneA.display()
            cluster.expect(
                await eventuallyIgnoringErrors { laneB.disconnects.contains { $0.reason == .replaced && $0.takenByLaneLabel == "Lane A" } },
                "lane B on r2 was not told that lane A took the reader: \(laneB.events)"
            )
            row = try await cluster.database.ownership()[readerID]
            cluster.expect(row?.session == laneA.sessionID && row?.generation == Int64(firstGeneration + 2), "owner at the end: \(String(describing: row))")
            let problems = try await cluster.database.historyProblems(readerID, current: row)
            cluster.expect(problems.isEmpty, "history: \(problems)")
        }
    }
}
