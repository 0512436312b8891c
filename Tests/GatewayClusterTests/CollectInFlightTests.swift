import GatewayClient
import GatewayWire
import Synchronization
import Testing

/// Which replica dies while a collect is in flight.
enum DyingReplica: String, CaseIterable, Sendable, CustomTestStringConvertible {
    /// The one holding the reader's link (the lane's replica relays to it).
    case readersReplica
    /// The one holding the lane's session (the lane resumes elsewhere through the balancer).
    case lanesReplica

    var testDescription: String { rawValue }
}

extension ClusterTests {
    /// A collect is in flight — the reader shows it to the customer — when kill -9 takes
    /// the reader's replica or the lane's: the collect completes or fails with a retryable
    /// status, and sending it again works (never READER_BUSY for the lane's own reader, never
    /// a silent hang); the lane keeps its reader.
    @Test(arguments: DyingReplica.allCases)
    func collectInFlightWhenAReplicaDies(dying: DyingReplica) async throws {
        try await ClusterFixture.run { cluster in
            let lane: ClusterLane
            let laneReplica: Replica
            let readerReplica: Replica
            if dying == .lanesReplica {
                // Through the balancer, so that it can resume elsewhere; find where it landed.
                lane = try await cluster.lane("Lane", port: cluster.balancerPort)
                let sessions = try await cluster.database.openSessions()
                let node = try sessions[try lane.sessionID.orThrow("no session")].orThrow("the session is not in PostgreSQL")
                laneReplica = try cluster.replicas.first { node == $0.name || node.hasPrefix($0.name + "-") }.orThrow("no replica for node \(node)")
                readerReplica = cluster.replicas.first { $0 !== laneReplica }!
            } else {
                (laneReplica, readerReplica) = (cluster.replicas[2], cluster.replicas[0])
                lane = try await cluster.lane("Lane", port: laneReplica.port)
            }
            let spare = cluster.replicas.first { $0 !== laneReplica && $0 !== readerReplica }!
            let reader = try await cluster.attachReaders(1, ports: [readerReplica.port], fallback: [spare.port], prefix: "INFL", holdCollects: true)[0]
            let readerID = try #require(reader.readerID)
            let granted = try await lane.connect(readerID, location: cluster.location, failIfInUse: true)
            let inFlight = CallOutcome.collect(on: lane)
            try cluster.require(await eventuallyIgnoringErrors { reader.isHoldingCollect }, "the collect never reached the reader")

            let victim = dying == .readersReplica ? readerReplica : laneReplica
            let attachments = reader.attachments
            await victim.kill9()
            print("cluster: kill -9 \(victim.name) (\(dying.rawValue)) with a collect in flight; lane on \(laneReplica.name), reader on \(readerReplica.name)")
            // From now on the customer presents cards at once: the held collect (if the reader
            // still holds it) completes, and every later collect completes after 150 ms.
            reader.setHoldCollects(false)
            reader.finishCollect()

            let ended = await eventuallyIgnoringErrors(timeout: .seconds(20)) { inFlight.result != nil }
            try cluster.require(ended, "the collect in flight neither completed nor failed within 20 s of the kill")
            var outcome = "completed"
            if case .failure(let error) = inFlight.result {
                outcome = "\(error)"
                cluster.expect((error as? TerminalError)?.isRetryableInCluster == true, "the collect in flight failed with \(error), not a retryable status")
            }
            // The next collect works once the reader is back (bounded retries on retryable errors).
            let (done, retried) = await collectUntilItWorks(lane, cluster, what: "the retried collect")
            cluster.expect(done, "the collect never succeeded again after the kill (retryable failures: \(retried))")
            print("cluster: collect in flight → \(outcome); sent again: \(done ? "completed" : "failed") after \(retried.count) retryable failures \(retried.prefix(5))")
            if dying == .readersReplica {
                cluster.expect(reader.attachments > attachments, "the reader did not re-attach to \(spare.name)")
            }
            let row = try await cluster.database.ownership()[readerID]
            cluster.expect(row?.session == lane.sessionID && row?.generation == Int64(granted.generation), "the lane lost its reader: \(String(describing: row))")
            let problems = try await cluster.historyProblems([readerID])
            cluster.expect(problems.isEmpty, "history: \(problems)")
        }
    }
}

/// The result of a call running in the background, once it has one.
final class CallOutcome<Value: Sendable>: Sendable {
    private let slot = Mutex<Result<Value, any Error>?>(nil)
    var result: Result<Value, any Error>? { slot.withLock { $0 } }
    func set(_ result: Result<Value, any Error>) { slot.withLock { $0 = result } }
}

extension CallOutcome where Value == PaymentIntent {
    /// The lane's collect, started in a task of its own; its outcome lands in the result.
    static func collect(on lane: ClusterLane) -> CallOutcome {
        let outcome = CallOutcome()
        Task {
            do {
                outcome.set(.success(try await lane.collect()))
            } catch {
                outcome.set(.failure(error))
            }
        }
        return outcome
    }
}

extension ClusterTests {
    /// A collect that starts before PostgreSQL goes away and ends (the customer presents a
    /// card) while it is away: it completes or fails retryably, and once PostgreSQL is back
    /// the reader is not left "in use" — the lane's next collect works.
    @Test func collectEndingDuringAStoreOutage() async throws {
        try await ClusterFixture.run { cluster in
            let (r1, r2) = (cluster.replicas[0], cluster.replicas[1])
            let reader = try await cluster.attachReaders(1, ports: [r1.port], prefix: "PGC", holdCollects: true)[0]
            let readerID = try #require(reader.readerID)
            let lane = try await cluster.lane("Lane", port: r2.port)
            try await lane.connect(readerID, location: cluster.location, failIfInUse: true)
            let inFlight = CallOutcome.collect(on: lane)
            try cluster.require(await eventuallyIgnoringErrors { reader.isHoldingCollect }, "the collect never reached the reader")
            await cluster.postgres.stop()
            reader.finishCollect()
            let ended = await eventuallyIgnoringErrors(timeout: .seconds(15)) { inFlight.result != nil }
            try await cluster.postgres.start()
            try cluster.require(ended, "the collect neither completed nor failed within 15 s while PostgreSQL was down")
            var outcome = "completed"
            if case .failure(let error) = inFlight.result {
                outcome = "\(error)"
                cluster.expect((error as? TerminalError)?.isRetryableInCluster == true, "the collect failed with \(error), not a retryable status")
            }
            reader.setHoldCollects(false)
            let (done, retried) = await collectUntilItWorks(lane, cluster, what: "the next collect (was the reader left in use?)")
            cluster.expect(done, "the next collect never worked after the outage (retryable failures: \(retried))")
            print("cluster: collect ending during a store outage → \(outcome); the next collect: \(done ? "completed" : "failed") after \(retried.count) retryable failures")
            let problems = try await cluster.historyProblems([readerID])
            cluster.expect(problems.isEmpty, "history: \(problems)")
        }
    }

    /// Sends a collect until it works (the reader's card, ending 4242) or 20 s pass, waiting
    /// out retryable failures; any other failure, or a collect that returns another card, is
    /// recorded and ends the attempts. Whether it worked, and the retryable reasons seen.
    private func collectUntilItWorks(_ lane: ClusterLane, _ cluster: ClusterFixture, what: String) async -> (done: Bool, retried: [String]) {
        var retried: [String] = []
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline {
            do {
                let result = try await lane.collect()
                let done = result.paymentMethod?.last4 == "4242"
                cluster.expect(done, "\(what) returned \(result)")
                return (done, retried)
            } catch let error as TerminalError where error.isRetryableInCluster {
                retried.append(error.underlying.reasonName)
                try? await Task.sleep(for: .milliseconds(200))
            } catch {
                cluster.expect(false, "\(what) failed with \(error) (after \(retried))")
                return (false, retried)
            }
        }
        return (false, retried)
    }
}
