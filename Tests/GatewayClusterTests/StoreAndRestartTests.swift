import GatewayClient
import GatewayWire
import Testing

extension ClusterTests {
    /// PostgreSQL restarts under load: while it is away a new connect fails fast with a
    /// retryable status; afterwards every replica reconnects by itself (ready again), every
    /// lane still owns its reader (nothing lost, nothing duplicated: same generations), new
    /// connects work, and every command completed or failed retryably and then succeeded.
    @Test func postgresRestartUnderLoad() async throws {
        try await ClusterFixture.run { cluster in
            let scene = try await cluster.scene(6, prefix: "PGR")
            let spare = try await cluster.attachReaders(1, ports: [cluster.balancerPort], prefix: "PGS")[0]
            let spareID = try #require(spare.readerID)
            let newcomer = try await cluster.lane("Newcomer", port: cluster.balancerPort)
            let generations = try await cluster.database.ownership().mapValues(\.generation)
            scene.startLoad()
            _ = await eventually(timeout: .seconds(10)) { scene.loads.allSatisfy { $0.snapshot.completed.count >= 2 } }

            let stopped = ContinuousClock.now
            await cluster.postgres.stop()
            // Store outage: a new connect fails fast, retryably.
            let attempt = ContinuousClock.now
            do {
                try await newcomer.connect(spareID, location: cluster.location, failIfInUse: true)
                cluster.expect(false, "a connect succeeded while PostgreSQL was down")
            } catch let error as RPCError {
                cluster.expect(error.isRetryableInCluster, "a connect during the outage failed with \(error), not a retryable status")
            }
            let refusedIn = ContinuousClock.now - attempt
            cluster.expect(refusedIn < .seconds(6), "the connect during the outage took \(seconds(refusedIn))")
            let completedBefore = scene.completed
            try? await Task.sleep(for: .seconds(1))
            let duringOutage = scene.completed - completedBefore
            try await cluster.postgres.start()
            let restarted = ContinuousClock.now
            print("cluster: PostgreSQL down for \(seconds(restarted - stopped)); connect refused in \(seconds(refusedIn)); \(duringOutage) commands completed between owners and their readers during the outage")

            // Every replica reconnects by itself.
            let ready = await eventually(timeout: .seconds(30), interval: .milliseconds(200)) {
                for replica in cluster.replicas where !(await replica.isReady()) { return false }
                return true
            }
            cluster.expect(ready, "not every replica is ready again 30 s after PostgreSQL came back")
            let recovery = await cluster.waitForRecovery(scene, since: restarted, timeout: .seconds(30))
            await cluster.expect(recovery != nil, "no full recovery after the PostgreSQL restart", showing: scene)
            if let recovery { print("cluster: PostgreSQL back → full recovery in \(seconds(recovery))") }
            // New connects work again.
            let connected = await eventually(timeout: .seconds(15), interval: .milliseconds(300)) {
                try await newcomer.connect(spareID, location: cluster.location, failIfInUse: true)
                return true
            }
            cluster.expect(connected, "a new connect does not work after the restart")
            await scene.stopLoad()

            cluster.expect(scene.lost.isEmpty, "commands lost: \(scene.lost)")
            let problems = try await cluster.ownerProblems(scene)
            cluster.expect(problems.isEmpty, "owners after the restart: \(problems)")
            let after = try await cluster.database.ownership()
            for id in scene.readerIDs where after[id]?.generation != generations[id] {
                cluster.expect(false, "\(id) changed owner across the restart: generation \(generations[id] ?? -1) → \(after[id]?.generation ?? -1)")
            }
            let history = try await cluster.historyProblems(scene.readerIDs + [spareID])
            cluster.expect(history.isEmpty, "history: \(history)")
            print("cluster: PostgreSQL restart: \(scene.completed) commands completed, retried \(scene.retried), lost \(scene.lost.count)")
        }
    }

    /// Rolling restart of all three replicas under load, one by one, each drained with
    /// SIGTERM (the operations drain) and started again: no command is lost — each
    /// completes, or fails with a retryable status and succeeds when sent again — and every
    /// lane still owns its reader.
    @Test func rollingRestartUnderLoadLosesNoCommand() async throws {
        try await ClusterFixture.run { cluster in
            let scene = try await cluster.scene(6, prefix: "ROLL")
            let generations = try await cluster.database.ownership().mapValues(\.generation)
            scene.startLoad()
            _ = await eventually(timeout: .seconds(10)) { scene.loads.allSatisfy { $0.snapshot.completed.count >= 2 } }
            for replica in cluster.replicas {
                let began = ContinuousClock.now
                let status = await replica.terminate()
                cluster.expect(status == 0, "\(replica.name) did not drain and exit cleanly (status \(String(describing: status)))")
                let drained = ContinuousClock.now - began
                try await replica.start()
                let recovery = await cluster.waitForRecovery(scene, since: ContinuousClock.now, timeout: .seconds(30))
                await cluster.expect(recovery != nil, "no recovery after restarting \(replica.name)", showing: scene)
                print("cluster: rolling restart \(replica.name): drained in \(seconds(drained)), back and every lane working again \(recovery.map(seconds) ?? "never") later")
            }
            await scene.stopLoad()
            cluster.expect(scene.lost.isEmpty, "commands lost: \(scene.lost)")
            let problems = try await cluster.ownerProblems(scene)
            cluster.expect(problems.isEmpty, "owners after the rolling restart: \(problems)")
            let after = try await cluster.database.ownership()
            for id in scene.readerIDs where after[id]?.generation != generations[id] {
                cluster.expect(false, "\(id) changed owner during the rolling restart: generation \(generations[id] ?? -1) → \(after[id]?.generation ?? -1)")
            }
            let history = try await cluster.historyProblems(scene.readerIDs)
            cluster.expect(history.isEmpty, "history: \(history)")
            print("cluster: rolling restart: \(scene.completed) commands completed, retried \(scene.retried), lost \(scene.lost.count); lanes resumed \(scene.lanes.map(\.resumes).reduce(0, +)) times")
        }
    }
}
