import GatewayClient
import GatewayWire
import Testing

extension ClusterTests {
    /// kill -9 (three times, each time the replica holding the most readers and sessions,
    /// started again afterwards) while every lane is mid-command: its readers re-attach elsewhere, its lanes resume elsewhere with their
    /// resume tokens, every owner keeps its reader, no reader has two owners, and every
    /// command in flight completes or fails with a retryable status (and then succeeds on
    /// retry). Prints the time from each kill to full recovery.
    @Test func killNineOfAReplicaMidCommand() async throws {
        try await ClusterFixture.run { cluster in
            let scene = try await cluster.scene(6, prefix: "KILL")
            scene.startLoad()
            let going = await eventuallyIgnoringErrors(timeout: .seconds(10)) { scene.loads.allSatisfy { $0.snapshot.completed.count >= 2 } }
            try await cluster.require(going, "the load did not get going", showing: scene)
            let generations = try await cluster.database.ownership().mapValues(\.generation)
            var recoveries: [Duration] = []
            // Three kills, each of the replica holding the most readers and sessions at that
            // moment; the killed replica is started again before the next round.
            for round in 1...3 {
                let victim = try await cluster.busiestReplica(scene)
                let placement = try await cluster.placement(scene)
                let rows = try await cluster.database.ownership()
                let onVictim = scene.readers.filter { cluster.replica(ofNode: rows[$0.readerID ?? ""]?.node) === victim }
                let attachmentsBefore = Dictionary(uniqueKeysWithValues: onVictim.map { ($0, $0.attachments) })
                // Mid-command: wait until some lane has a command in flight.
                _ = await eventuallyIgnoringErrors(timeout: .seconds(2), interval: .milliseconds(5)) { scene.loads.contains { $0.snapshot.inFlight != nil } }
                let inFlight = scene.loads.filter { $0.snapshot.inFlight != nil }.count
                let killed = ContinuousClock.now
                await victim.kill9()
                print("cluster: kill -9 #\(round) \(victim.name) (\(placement[victim.name]!.links) reader links, \(placement[victim.name]!.sessions) sessions) with \(inFlight) commands in flight")

                let recovery = await cluster.waitForRecovery(scene, since: killed, reattaching: attachmentsBefore, timeout: .seconds(30))
                await cluster.expect(recovery != nil, "no full recovery within 30 s after kill -9 of \(victim.name)", showing: scene)
                guard let recovery else { break }
                recoveries.append(recovery)
                print("cluster: kill -9 #\(round) \(victim.name) → full recovery (its readers re-attached elsewhere, every lane commanding its reader) in \(seconds(recovery))")
                // Keep working a little on the two survivors, then bring the victim back.
                let settled = ContinuousClock.now
                _ = await eventuallyIgnoringErrors(timeout: .seconds(5)) { scene.loads.allSatisfy { $0.snapshot.completed.contains { $0.started >= settled } } }
                try await victim.start()
            }
            if !recoveries.isEmpty {
                print("cluster: kill -9 → full recovery: \(recoveries.map(seconds).joined(separator: ", ")) (max \(seconds(recoveries.max()!)))")
            }
            await scene.stopLoad()

            try await cluster.expectNothingChanged(scene, generations: generations, across: "the kill")
            let live = Set(try await cluster.database.nodes())
            for row in try await cluster.database.ownership().values {
                cluster.expect(row.node.map(live.contains) == true, "\(row.reader) is linked to a node that is not registered: \(row); nodes \(live)")
            }
            print("cluster: kill -9: \(scene.completed) commands completed, retried \(scene.retried), lost \(scene.lost.count); lanes resumed \(scene.lanes.map(\.resumes).reduce(0, +)) times")
        }
    }

    /// SIGSTOP of a replica under load for longer than its node lease, then SIGCONT: the others reap it
    /// (its node row goes, its links are detached), and when it wakes it acts on nothing it
    /// remembered: its old links are closed (the readers re-attach, owners kept), no row is
    /// linked to its old incarnation, no ownership changes, the history gets nothing new.
    @Test func pausedReplicaActsOnNothingStaleWhenItWakes() async throws {
        try await ClusterFixture.run { cluster in
            let scene = try await cluster.scene(6, prefix: "STOP")
            let victim = try await cluster.busiestReplica(scene)
            let rowsBefore = try await cluster.database.ownership()
            let onVictim = scene.readers.filter { cluster.replica(ofNode: rowsBefore[$0.readerID ?? ""]?.node) === victim }
            let attachmentsBefore = Dictionary(uniqueKeysWithValues: onVictim.map { ($0, $0.attachments) })
            let oldNode = victim.nodeID ?? rowsBefore.values.compactMap(\.node).first { cluster.replica(ofNode: $0) === victim }
            let historyBefore = try await scene.readerIDs.asyncMap { try await cluster.database.history($0).count }
            cluster.expect(oldNode != nil, "no node id known for \(victim.name)")

            // Under load: the lanes on the paused replica have commands stuck in it.
            scene.startLoad()
            let going = await eventuallyIgnoringErrors(timeout: .seconds(10)) { scene.loads.allSatisfy { $0.snapshot.completed.count >= 2 } }
            try await cluster.require(going, "the load did not get going", showing: scene)
            victim.pause()
            let paused = ContinuousClock.now
            // Past the lease: another replica reaps the paused one.
            let reaped = await eventuallyIgnoringErrors(timeout: cluster.options.nodeLease * 4 + .seconds(3), interval: .milliseconds(100)) {
                guard let oldNode, ContinuousClock.now - paused > cluster.options.nodeLease + .milliseconds(500) else { return false }
                return try await !cluster.database.nodes().contains(oldNode)
            }
            cluster.expect(reaped, "\(victim.name) (\(oldNode ?? "?")) was not reaped within 4 leases of its pause")
            let rowsWhilePaused = try await cluster.database.ownership()
            let pausedFor = ContinuousClock.now - paused
            victim.resume()
            let woke = ContinuousClock.now
            print("cluster: SIGSTOP \(victim.name) for \(seconds(pausedFor)) (node lease \(seconds(cluster.options.nodeLease))), reaped: \(reaped), then SIGCONT")

            // It fences itself: every old link closed, the readers come back, owners kept.
            let recovered = await eventuallyIgnoringErrors(timeout: .seconds(20), interval: .milliseconds(100)) {
                guard scene.readers.allSatisfy(\.isAttached), attachmentsBefore.allSatisfy({ $0.key.attachments > $0.value }) else { return false }
                return try await cluster.ownerProblems(scene).isEmpty
            }
            await cluster.expect(recovered, "the readers of the woken \(victim.name) did not come back to their owners", showing: scene)
            if recovered { print("cluster: SIGCONT \(victim.name) → its readers re-attached, owners kept, in \(seconds(ContinuousClock.now - woke))") }
            // Every lane commands its reader again (those on the victim resume elsewhere or on its
            // new incarnation); the commands stuck in the paused replica completed or failed retryably.
            let since = ContinuousClock.now
            let working = await eventuallyIgnoringErrors(timeout: .seconds(20)) { scene.loads.allSatisfy { $0.firstCompletion(startedAfter: since) != nil } }
            await scene.stopLoad()
            await cluster.expect(working, "lanes cannot command their readers after the SIGCONT", showing: scene)
            cluster.expect(scene.lost.isEmpty, "commands lost: \(scene.lost)")

            // Nothing stale: no row linked to the old incarnation, no owner change, no new history.
            let rowsAfter = try await cluster.database.ownership()
            for id in scene.readerIDs {
                let (before, during, after) = (rowsBefore[id], rowsWhilePaused[id], rowsAfter[id])
                cluster.expect(after?.session == before?.session && after?.generation == before?.generation, "\(id): owner changed \(String(describing: before)) → \(String(describing: after))")
                if let oldNode { cluster.expect(after?.node != oldNode, "\(id) still linked to the paused incarnation \(oldNode)") }
                cluster.expect((after?.epoch ?? 0) >= (during?.epoch ?? 0), "\(id): link epoch went back \(during?.epoch ?? 0) → \(after?.epoch ?? 0)")
            }
            let historyAfter = try await scene.readerIDs.asyncMap { try await cluster.database.history($0).count }
            cluster.expect(historyAfter == historyBefore, "history grew while nothing changed hands: \(historyBefore) → \(historyAfter)")
            let nodes = try await cluster.database.nodes()
            cluster.expect(nodes.count == cluster.replicas.count, "nodes after the wake: \(nodes)")
            if let oldNode { cluster.expect(!nodes.contains(oldNode), "the paused incarnation \(oldNode) is registered again") }
            let history = try await cluster.historyProblems(scene.readerIDs)
            cluster.expect(history.isEmpty, "history: \(history)")
        }
    }
}

extension Array {
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var result: [T] = []
        for element in self { result.append(try await transform(element)) }
        return result
    }
}
