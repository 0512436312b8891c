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
            _ = await eventuallyIgnoringErrors(timeout: .seconds(10)) { scene.loads.allSatisfy { $0.snapshot.completed.count >= 2 } }

            let stopped = ContinuousClock.now
            await cluster.postgres.stop()
            // Store outage: a new connect fails fast, retryably.
            let attempt = ContinuousClock.now
            do {
                try await newcomer.connect(spareID, location: cluster.location, failIfInUse: true)
                cluster.expect(false, "a connect succeeded while PostgreSQL was down")
            } catch let error as TerminalError {
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
            let ready = await cluster.everyReplicaReady(within: .seconds(30), checkingEvery: .milliseconds(200))
            cluster.expect(ready, "not every replica is ready again 30 s after PostgreSQL came back")
            let recovery = await cluster.waitForRecovery(scene, since: restarted, timeout: .seconds(30))
            await cluster.expect(recovery != nil, "no full recovery after the PostgreSQL restart", showing: scene)
            if let recovery { print("cluster: PostgreSQL back → full recovery in \(seconds(recovery))") }
            // New connects work again.
            let connected = await eventuallyIgnoringErrors(timeout: .seconds(15), interval: .milliseconds(300)) {
                try await newcomer.connect(spareID, location: cluster.location, failIfInUse: true)
                return true
            }
            cluster.expect(connected, "a new connect does not work after the restart")
            await scene.stopLoad()

            try await cluster.expectNothingChanged(scene, generations: generations, across: "the PostgreSQL restart", alsoInHistory: [spareID])
            print("cluster: PostgreSQL restart: \(scene.completed) commands completed, retried \(scene.retried), lost \(scene.lost.count)")
        }
    }

    /// The design's store outage rule: with PostgreSQL unreachable, commands between a
    /// session and a reader it already owns keep flowing where both sides are reachable
    /// (lane and reader on the same replica, and on two different replicas), while nothing
    /// new is decided: a takeover fails fast with a retryable status and changes nothing.
    @Test func ownedReadersKeepWorkingDuringAStoreOutage() async throws {
        try await ClusterFixture.run { cluster in
            let (r1, r2) = (cluster.replicas[0], cluster.replicas[1])
            let readers = try await cluster.attachReaders(2, ports: [r1.port, r2.port], prefix: "OUT")
            let ids = try readers.map { try $0.readerID.orThrow("reader \($0.serial) has no id") }
            // Lane 1 and its reader on r1; lane 2 on r1 with its reader on r2 (relayed).
            let local = try await cluster.lane("Same replica", port: r1.port)
            let relayed = try await cluster.lane("Across replicas", port: r1.port)
            let intruder = try await cluster.lane("Intruder", port: r2.port)
            try await local.connect(ids[0], location: cluster.location, failIfInUse: true)
            try await relayed.connect(ids[1], location: cluster.location, failIfInUse: true)
            try await local.display()
            try await relayed.display()
            let discovered = try await intruder.discover(location: cluster.location)
            let target = try #require(discovered.first { $0.id == ids[0] })
            let before = try await cluster.database.ownership()

            await cluster.postgres.stop()
            var worked: [String: Int] = [:]
            var failures: [String] = []
            for _ in 0..<10 {
                for lane in [local, relayed] {
                    do {
                        try await lane.display()
                        worked[lane.label, default: 0] += 1
                    } catch {
                        failures.append("\(lane.label): \(error)")
                    }
                }
                try? await Task.sleep(for: .milliseconds(100))
            }
            // Fails fast: the gateway answers UNAVAILABLE. Had it queued the claim for PostgreSQL
            // (the pool waits up to 30 s for a connection), the lane's 10 s call deadline would
            // have ended the call first with DEADLINE_EXCEEDED, which is not a retryable status here.
            do {
                try await intruder.connect(target, failIfInUse: false)
                cluster.expect(false, "a takeover succeeded while PostgreSQL was down")
            } catch let error as TerminalError {
                cluster.expect(error.isRetryableInCluster, "the takeover during the outage failed with \(error), not a retryable status (DEADLINE_EXCEEDED: it waited for PostgreSQL instead of failing fast)")
            }
            try await cluster.postgres.start()
            print("cluster: store outage: commands that worked while PostgreSQL was down: \(worked) of 10 each; failures: \(failures.prefix(4))")
            cluster.expect(worked["Same replica", default: 0] == 10, "the owner on the reader's replica could not command it during the outage: \(failures.prefix(4))")
            cluster.expect(worked["Across replicas", default: 0] == 10, "the owner on another replica could not command its reader during the outage: \(failures.prefix(4))")

            let ready = await cluster.everyReplicaReady(within: .seconds(30), checkingEvery: .milliseconds(200))
            cluster.expect(ready, "not every replica is ready again after the outage")
            let after = try await cluster.database.ownership()
            for id in ids {
                cluster.expect(after[id]?.session == before[id]?.session && after[id]?.generation == before[id]?.generation, "\(id) changed during the outage: \(String(describing: before[id])) → \(String(describing: after[id]))")
            }
            let history = try await cluster.historyProblems(ids)
            cluster.expect(history.isEmpty, "history: \(history)")
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
            _ = await eventuallyIgnoringErrors(timeout: .seconds(10)) { scene.loads.allSatisfy { $0.snapshot.completed.count >= 2 } }
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
            try await cluster.expectNothingChanged(scene, generations: generations, across: "the rolling restart")
            print("cluster: rolling restart: \(scene.completed) commands completed, retried \(scene.retried), lost \(scene.lost.count); lanes resumed \(scene.lanes.map(\.resumes).reduce(0, +)) times")
        }
    }
}
