import GatewayClient
import GatewayWire
import Testing

extension ClusterTests {
    /// PostgreSQL unreachable (stopped) under lane load: every replica stays in the Service
    /// (`/readyz` 200, its body saying `degraded store`, `reader_gateway_store_reachable 0`),
    /// so lanes and readers can still reach a replica; the lanes' displays keep flowing, and a
    /// new connect fails fast and retryably. PostgreSQL back: the probe is plain `ready` again
    /// and the connect succeeds.
    @Test func storeOutageKeepsEveryReplicaReadyWhileNewConnectsFailFast() async throws {
        try await ClusterFixture.run(ClusterOptions()) { cluster in
            let scene = try await cluster.scene(3, prefix: "OUT", displaysOnly: true)
            let spare = try await cluster.attachReaders(1, ports: [cluster.balancerPort], prefix: "OUS")[0]
            let spareID = try #require(spare.readerID)
            let newcomer = try await cluster.lane("Newcomer", port: cluster.balancerPort)
            scene.startLoad()
            _ = await eventuallyIgnoringErrors(timeout: .seconds(10)) { scene.loads.allSatisfy { $0.snapshot.completed.count >= 2 } }

            await cluster.postgres.stop()
            let stopped = ContinuousClock.now
            let ports = cluster.replicas.map(\.opsPort)
            var notReady: [String] = []
            let degraded = await eventuallyIgnoringErrors(timeout: .seconds(30), interval: .milliseconds(100)) {
                let answers = await Task.detached { ports.map { Loopback.httpGet(port: $0, path: "/readyz") } }.value
                for (port, answer) in zip(ports, answers) where answer?.status != 200 {
                    notReady.append(":\(port) answered \(answer.map { "\($0.status) \($0.body)" } ?? "nothing")")
                }
                return answers.allSatisfy { $0?.status == 200 && $0?.body.contains("degraded store: no successful ping") == true }
            }
            let degradedAt = ContinuousClock.now
            cluster.expect(degraded, "not every replica reported the store outage in /readyz within 30 s")
            cluster.expect(notReady.isEmpty, "a replica left the Service during the store outage: \(notReady)")
            let metrics = await Task.detached { ports.map { Loopback.httpGet(port: $0, path: "/metrics")?.body ?? "" } }.value
            for (port, body) in zip(ports, metrics) {
                cluster.expect(body.contains("\nreader_gateway_store_reachable 0"), ":\(port) /metrics does not report reader_gateway_store_reachable 0")
            }

            // A new connect fails fast and retryably; the lanes' displays keep flowing.
            let attempt = ContinuousClock.now
            do {
                try await newcomer.connect(spareID, location: cluster.location, failIfInUse: true)
                cluster.expect(false, "a connect succeeded while PostgreSQL was stopped")
            } catch let error as TerminalError {
                cluster.expect(error.isRetryableInCluster, "a connect during the outage failed with \(error), not a retryable status")
            }
            let refusedIn = ContinuousClock.now - attempt
            cluster.expect(refusedIn < .seconds(6), "the connect during the outage took \(seconds(refusedIn))")
            let flowing = await eventuallyIgnoringErrors(timeout: .seconds(30)) {
                scene.loads.allSatisfy { load in load.snapshot.completed.count { $0.started >= degradedAt } >= 3 }
            }
            await cluster.expect(flowing, "the lanes' displays stopped during the store outage", showing: scene)
            let duringOutage = scene.loads.map { load in load.snapshot.completed.count { $0.started >= stopped } }.reduce(0, +)

            try await cluster.postgres.start()
            let back = ContinuousClock.now
            let ready = await eventuallyIgnoringErrors(timeout: .seconds(30), interval: .milliseconds(100)) {
                let answers = await Task.detached { ports.map { Loopback.httpGet(port: $0, path: "/readyz") } }.value
                return answers.allSatisfy { $0?.status == 200 && $0?.body.hasPrefix("ready\n") == true }
            }
            let readyAt = ContinuousClock.now
            cluster.expect(ready, "not every replica reported the store back within 30 s")
            let connected = await eventuallyIgnoringErrors(timeout: .seconds(30), interval: .milliseconds(100)) {
                do {
                    try await newcomer.connect(spareID, location: cluster.location, failIfInUse: true)
                    return true
                } catch let error as TerminalError {
                    cluster.expect(error.isRetryableInCluster, "a connect after the outage failed with \(error), not a retryable status")
                    return false
                }
            }
            cluster.expect(connected, "no connect succeeded within 30 s of PostgreSQL's return")
            await scene.stopLoad()
            cluster.expect(scene.lost.isEmpty, "commands lost during the store outage: \(scene.lost)")
            print("cluster: store outage: PostgreSQL stopped → every replica's /readyz 200 'degraded store' in \(seconds(degradedAt - stopped)) (503 answers meanwhile: \(notReady.count)); a new connect refused retryably in \(seconds(refusedIn)); \(duringOutage) displays completed during the outage; PostgreSQL back → /readyz plain ready in \(seconds(readyAt - back)); retried \(scene.retried), lost \(scene.lost.count)")
        }
    }
}
