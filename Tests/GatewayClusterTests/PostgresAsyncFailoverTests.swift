import GatewayClient
import GatewayWire
import Testing

extension ClusterTests {
    /// A PostgreSQL failover with asynchronous replication that loses acknowledged changes for
    /// sure: the standby stops streaming once it has replayed everything, then two connects
    /// are acknowledged by the primary alone (a lane replacing another on one reader, a lane
    /// connecting to a free reader), then the primary is killed with `kill -9` and the standby
    /// promoted, while six lanes work their readers (displays: a load that writes nothing).
    ///
    /// The promoted store went back in time: it still shows the replaced lane as the owner of
    /// the first reader and nobody on the second, at generations already handed out. Every
    /// replica compares the rows with what it knows when it listens again, and repairs: both
    /// readers are released at a generation above every one a lane was told, the lanes whose
    /// grants vanished hear `STORE_ROLLED_BACK`, and their next connects get generations nobody
    /// held. The six lanes keep their readers at their generations (nothing of theirs was lost).
    /// The promoted server writes a new timeline, so the repair (and every change there) lands
    /// at or above that timeline's floor (2^40, migration 0020).
    @Test func postgresFailoverAsynchronousLosingConnectsIsDetectedAndRepaired() async throws {
        var options = ClusterOptions()
        options.replication = .asynchronous
        try await ClusterFixture.run(options) { cluster in
            let scene = try await cluster.scene(6, prefix: "PGA", displaysOnly: true)
            let spares = try await cluster.attachReaders(2, ports: [cluster.balancerPort], prefix: "PGR")
            let replaced = try #require(spares[0].readerID)
            let fresh = try #require(spares[1].readerID)
            let before = try await cluster.lane("Before", port: cluster.balancerPort)
            let taker = try await cluster.lane("Taker", port: cluster.balancerPort)
            let newcomer = try await cluster.lane("Newcomer", port: cluster.balancerPort)
            let beforeGeneration = try await before.connect(replaced, location: cluster.location, failIfInUse: true).generation
            scene.startLoad()
            _ = await eventuallyIgnoringErrors(timeout: .seconds(10)) { scene.loads.allSatisfy { $0.snapshot.completed.count >= 2 } }
            let generations = try await cluster.database.ownership().mapValues(\.generation)

            // Acknowledged by the primary alone: the failover loses both, for sure.
            try await cluster.postgres.stopStandbyStreaming()
            let takerGeneration = try await taker.connect(replaced, location: cluster.location, failIfInUse: false).generation
            let newcomerGeneration = try await newcomer.connect(fresh, location: cluster.location, failIfInUse: true).generation
            let beforeTold = await before.waitForDisconnect(timeout: .seconds(10))
            cluster.expect(beforeTold?.reason == .replaced, "the replaced lane heard \(String(describing: beforeTold)), not REPLACED")

            let killed = try await cluster.postgres.killPrimary()
            let promoted = try await cluster.postgres.promoteStandby()
            // Every lane whose grant vanished hears why.
            let vanished = [taker, newcomer]
            let told = await eventuallyIgnoringErrors(timeout: .seconds(30), interval: .milliseconds(50)) {
                vanished.allSatisfy { lane in lane.disconnects.contains { $0.reason == .storeRolledBack } }
            }
            let toldAt = ContinuousClock.now
            cluster.expect(told, "lanes whose connects the store lost were not told STORE_ROLLED_BACK: \(vanished.map { "\($0.label): \($0.disconnects.map(\.reason))" })")

            // The promoted store, repaired: nobody owns either reader, above every generation told.
            let repaired = try await cluster.database.ownership()
            for (reader, told) in [(replaced, takerGeneration), (fresh, newcomerGeneration)] {
                let row = repaired[reader]
                cluster.expect(row?.session == nil, "\(reader) after the repair: \(String(describing: row)), expected no owner")
                cluster.expect((row?.generation ?? 0) > Int64(told), "\(reader) after the repair is at generation \(row?.generation ?? -1), not above \(told) (told to a lane)")
                // The promoted server writes timeline 2: every change there is at or above its floor.
                cluster.expect((row?.generation ?? 0) >= ClusterDatabase.timelineFloorStep, "\(reader) after the repair is at generation \(row?.generation ?? -1), below timeline 2's floor \(ClusterDatabase.timelineFloorStep)")
                let history = try await cluster.database.history(reader)
                cluster.expect(history.contains { $0.reason == "store_rolled_back" }, "\(reader): no store_rolled_back in its history: \(history)")
            }

            // Connecting again hands out generations nobody held.
            var again: [String: UInt64] = [:]
            for (lane, reader) in [(taker, replaced), (newcomer, fresh)] {
                let connected = await eventuallyIgnoringErrors(timeout: .seconds(30), interval: .milliseconds(100)) {
                    do {
                        again[reader] = try await lane.connect(reader, location: cluster.location, failIfInUse: true).generation
                        return true
                    } catch let error as TerminalError {
                        cluster.expect(error.isRetryableInCluster, "\(lane.label) connecting again failed with \(error), not a retryable status")
                        return false
                    }
                }
                cluster.expect(connected, "\(lane.label) could not connect to \(reader) again within 30 s")
            }
            let reconnectedAt = ContinuousClock.now
            let toldGenerations: [String: [UInt64]] = [
                replaced: [beforeGeneration, takerGeneration, again[replaced] ?? 0],
                fresh: [newcomerGeneration, again[fresh] ?? 0],
            ]
            for (reader, told) in toldGenerations {
                cluster.expect(zip(told, told.dropFirst()).allSatisfy { $0 < $1 }, "\(reader): generations told to lanes \(told) do not strictly rise")
                let changes = try await cluster.database.history(reader).filter { $0.reason != "refused_busy" }.map(\.generation)
                cluster.expect(Set(changes).count == changes.count && changes == changes.sorted(), "\(reader): history generations \(changes) repeat or fall")
            }
            let owners = try await cluster.database.ownership()
            cluster.expect(owners[replaced]?.session == taker.sessionID, "\(replaced) is owned by \(String(describing: owners[replaced])), not the taker")
            cluster.expect(owners[fresh]?.session == newcomer.sessionID, "\(fresh) is owned by \(String(describing: owners[fresh])), not the newcomer")

            let ready = await cluster.everyReplicaReady(within: .seconds(30), checkingEvery: .milliseconds(100))
            cluster.expect(ready, "not every replica is ready again 30 s after the promotion")
            let recovery = await cluster.waitForRecovery(scene, since: promoted, timeout: .seconds(30))
            await cluster.expect(recovery != nil, "no full recovery after the failover", showing: scene)
            await scene.stopLoad()
            try await cluster.expectNothingChanged(scene, generations: generations, across: "the failover")

            let repairs = cluster.replicas.map { $0.lines(containing: "the store went back in time for a reader: repaired").count }.reduce(0, +)
            cluster.expect(repairs >= 2, "the replicas logged \(repairs) repairs, expected one per reader at least (2)")
            print("cluster: PostgreSQL failover (asynchronous, the standby's stream stopped before 2 acknowledged connects): kill -9 → promoted in \(seconds(promoted - killed)); promoted → every lost connect told STORE_ROLLED_BACK in \(seconds(toldAt - promoted)), both connected again \(seconds(reconnectedAt - promoted)) after the promotion; acknowledged changes lost 2, detected and repaired 2 (\(repairs) repairs logged across the replicas); generations told \(toldGenerations.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }); \(scene.completed) commands completed, retried \(scene.retried), lost \(scene.lost.count); every lane working again \(recovery.map(seconds) ?? "never") after the promotion")
        }
    }
}
