import GatewayClient
import GatewayWire
import Testing

extension ClusterTests {
    /// A PostgreSQL failover under load, with synchronous replication: the primary is killed
    /// with `kill -9` while six lanes work their readers, its standby is promoted on the other
    /// address of the replicas' multi-host URL. Every replica finds the new primary by itself
    /// (ready again), listens there again, and nothing acknowledged is lost: every lane still
    /// owns its reader at the generation it had, every generation a lane was granted is in
    /// the promoted server's history, and a registration and a connect acknowledged just
    /// before the kill are there. With no primary a new connect fails fast and retryably;
    /// commands during the failover fail retryably, then succeed.
    @Test func postgresFailoverUnderLoadLosesNothingAcknowledged() async throws {
        var options = ClusterOptions()
        options.replication = .synchronous
        try await ClusterFixture.run(options) { cluster in
            let scene = try await cluster.scene(6, prefix: "PGF")
            let spare = try await cluster.attachReaders(1, ports: [cluster.balancerPort], prefix: "PGS")[0]
            let spareID = try #require(spare.readerID)
            let newcomer = try await cluster.lane("Newcomer", port: cluster.balancerPort)
            scene.startLoad()
            _ = await eventuallyIgnoringErrors(timeout: .seconds(10)) { scene.loads.allSatisfy { $0.snapshot.completed.count >= 2 } }

            // Acknowledged just before the kill: a registration (with its link) and a connect.
            let late = try await cluster.attachReaders(1, ports: [cluster.balancerPort], prefix: "PGL")[0]
            let lateID = try #require(late.readerID)
            let lateLane = try await cluster.lane("Late", port: cluster.balancerPort)
            let lateGeneration = try await lateLane.connect(lateID, location: cluster.location, failIfInUse: true).generation
            let generations = try await cluster.database.ownership().mapValues(\.generation)

            let killed = try await cluster.postgres.killPrimary()
            // No primary: a new connect fails fast, retryably, and decides nothing.
            let attempt = ContinuousClock.now
            do {
                try await newcomer.connect(spareID, location: cluster.location, failIfInUse: true)
                cluster.expect(false, "a connect succeeded while no PostgreSQL accepted writes")
            } catch let error as TerminalError {
                cluster.expect(error.isRetryableInCluster, "a connect with no primary failed with \(error), not a retryable status")
            }
            let refusedIn = ContinuousClock.now - attempt
            cluster.expect(refusedIn < .seconds(6), "the connect with no primary took \(seconds(refusedIn))")
            let promoted = try await cluster.postgres.promoteStandby()
            // The first connect the promoted server records: how long after the promotion.
            var failedConnects = 0
            let connected = await eventuallyIgnoringErrors(timeout: .seconds(30), interval: .milliseconds(50)) {
                do {
                    try await newcomer.connect(spareID, location: cluster.location, failIfInUse: true)
                    return true
                } catch let error as TerminalError {
                    cluster.expect(error.isRetryableInCluster, "a connect during the failover failed with \(error), not a retryable status")
                    failedConnects += 1
                    return false
                }
            }
            let firstConnect = ContinuousClock.now
            cluster.expect(connected, "no connect succeeded within 30 s of the promotion")

            let ready = await cluster.everyReplicaReady(within: .seconds(30), checkingEvery: .milliseconds(100))
            cluster.expect(ready, "not every replica is ready again 30 s after the promotion")
            let recovery = await cluster.waitForRecovery(scene, since: promoted, timeout: .seconds(30))
            await cluster.expect(recovery != nil, "no full recovery after the failover", showing: scene)
            await scene.stopLoad()

            // Nothing acknowledged is missing from the promoted server.
            try await cluster.expectNothingChanged(scene, generations: generations, across: "the failover", alsoInHistory: [spareID, lateID])
            var missing: [String] = []
            let lateHistory = try await cluster.database.history(lateID)
            if !lateHistory.contains(where: { $0.generation == Int64(lateGeneration) && $0.to == lateLane.sessionID }) {
                missing.append("the late connect of \(lateID) (generation \(lateGeneration))")
            }
            let owners = try await cluster.database.ownership()
            if owners[lateID] == nil { missing.append("the late registration of \(lateID)") }
            if owners[spareID]?.session != newcomer.sessionID { missing.append("the first connect after the promotion (\(spareID))") }
            var grantedCount = 0
            for (index, id) in scene.readerIDs.enumerated() {
                let history = try await cluster.database.history(id)
                for generation in scene.loads[index].snapshot.granted {
                    grantedCount += 1
                    if !history.contains(where: { $0.generation == Int64(generation) && $0.to == scene.lanes[index].sessionID }) {
                        missing.append("generation \(generation) of \(id) granted to \(scene.lanes[index].label)")
                    }
                }
            }
            cluster.expect(missing.isEmpty, "acknowledged changes missing after the failover: \(missing)")
            // A synchronous promotion changes the timeline but loses nothing: no row is behind.
            let repairs = cluster.replicas.flatMap { $0.lines(containing: "the store went back in time") }
            cluster.expect(repairs.isEmpty, "a synchronous failover was taken for a store that went back in time: \(repairs)")
            print("cluster: PostgreSQL failover (synchronous): kill -9 → promoted in \(seconds(promoted - killed)) (a connect meanwhile refused retryably in \(seconds(refusedIn))); promoted → first successful connect in \(seconds(firstConnect - promoted)) (\(failedConnects) connects failed retryably before it); every lane working again \(recovery.map(seconds) ?? "never") after the promotion; \(scene.completed) commands completed, retried \(scene.retried), lost \(scene.lost.count); acknowledged changes lost: \(missing.count) of \(grantedCount + 3) checked; rows found behind: \(repairs.count)")
        }
    }
}
