import GatewayTestKit
import Foundation
import GatewayClient
import GatewayTestSupport
import GatewayWire
import Synchronization
import Testing

/// `make chaos`: a randomized schedule of faults — kill -9 (and start again), SIGSTOP past
/// the node lease then SIGCONT, SIGTERM drain (and start again), PostgreSQL restart, and a
/// PostgreSQL failover (kill -9 of the primary, its synchronous standby promoted on the other
/// address of the replicas' multi-host URL, then a new standby made from it) — for
/// `CLUSTER_CHAOS_SECONDS` under lane load, then the invariants: one owner per reader,
/// generations and link epochs that never go back, a history without gaps that agrees with
/// what the lanes were told. Off unless `CLUSTER_CHAOS_SECONDS` is set; `CLUSTER_CHAOS_SEED`
/// replays a schedule.
///
/// Beside the client library's lanes run `CLUSTER_CHAOS_WIRE_LANES` (default 4) raw lanes
/// (``WireLane``) that speak the protocol with no recovery of their own and judge every resume
/// answer and every refusal against PostgreSQL at that moment; any disagreement fails the run.
///
/// With `CLUSTER_CHAOS_WEBHOOKS=1` (`make chaos-webhooks`) a webhook endpoint that wants every
/// event POSTs to the tests' HTTPS receiver (a real process) all along; at the end, once the
/// deliveries drained, every event of the log must have been received (distinct ids; duplicates
/// are counted), each reader's events first arriving in the order the log wrote them, every
/// signature verifying (``ChaosWebhooks``).
@Suite(
    "cluster chaos", .serialized, .timeLimit(.minutes(180)),
    .enabled(if: ProcessInfo.processInfo.environment["CLUSTER_CHAOS_SECONDS"] != nil)
)
struct ClusterChaosTests {
    enum Fault: String, CaseIterable, Sendable {
        case kill9 = "kill -9", pause = "SIGSTOP/SIGCONT", drain = "drain and restart", postgres = "PostgreSQL restart"
        case failover = "PostgreSQL failover"

        /// The fault is PostgreSQL's, not a replica's.
        var isStore: Bool { self == .postgres || self == .failover }
    }

    @Test func randomizedFaultsKeepTheInvariants() async throws {
        let environment = ProcessInfo.processInfo.environment
        let budget = Duration.seconds(Int(environment["CLUSTER_CHAOS_SECONDS"] ?? "") ?? 120)
        let seed = UInt64(environment["CLUSTER_CHAOS_SEED"] ?? "") ?? UInt64.random(in: 1...UInt64(UInt32.max))
        let wireLaneCount = max(0, Int(environment["CLUSTER_CHAOS_WIRE_LANES"] ?? "") ?? 4)
        let receiver = environment["CLUSTER_CHAOS_WEBHOOKS"] == "1" ? try await WebhookReceiver.start() : nil
        print("chaos: \(seconds(budget)) of faults, seed \(seed) (CLUSTER_CHAOS_SEED=\(seed) replays the schedule), \(wireLaneCount) wire lanes\(receiver == nil ? "" : ", a webhook receiver")")

        var options = ClusterOptions()
        // The fault schedule overruns its budget by its last recoveries; a webhook run also drains.
        options.watchdog = budget + .seconds(receiver == nil ? 600 : 1_200)
        options.replication = .synchronous
        if let receiver { options.extraArguments = ChaosWebhooks.arguments(receiver) }
        do {
            try await run(options, budget: budget, seed: seed, wireLaneCount: wireLaneCount, receiver: receiver)
        } catch {
            await receiver?.stop()
            throw error
        }
        await receiver?.stop()
    }

    func run(_ options: ClusterOptions, budget: Duration, seed: UInt64, wireLaneCount: Int, receiver: WebhookReceiver?) async throws {
        var random = SplitMix64(seed: seed)
        try await ClusterFixture.run(options) { cluster in
            // The endpoint before any reader: every event of the run is queued for it.
            var webhooks: ChaosWebhooks?
            if let receiver { webhooks = try await ChaosWebhooks.subscribe(cluster, receiver) }
            let scene = try await cluster.scene(8, prefix: "CHAOS", reconnect: true, retryWindow: .seconds(60))
            let wire = try await cluster.wireLanes(wireLaneCount, seed: seed)
            let monotonic = MonotonicWatch(cluster: cluster, readerIDs: scene.readerIDs + wire.readerIDs)
            monotonic.start()
            scene.startLoad()
            wire.start()
            let began = ContinuousClock.now
            var survived: [Fault: Int] = [:]
            var recoveries: [Duration] = []
            for _ in 0..<10_000 where ContinuousClock.now - began < budget {
                let fault = Fault.allCases[Int(random.next() % UInt64(Fault.allCases.count))]
                let victim = cluster.replicas[Int(random.next() % UInt64(cluster.replicas.count))]
                let injected = ContinuousClock.now
                print("chaos: \(wallClock()) \(fault.rawValue)\(fault.isStore ? "" : " of \(victim.name)")")
                switch fault {
                case .kill9:
                    await victim.kill9()
                    try? await Task.sleep(for: .milliseconds(Int64(500 + random.next() % 1500)))
                    try await victim.start()
                case .pause:
                    victim.pause()
                    try? await Task.sleep(for: cluster.options.nodeLease + .milliseconds(Int64(500 + random.next() % 2000)))
                    victim.resume()
                case .drain:
                    await victim.terminate()
                    try await victim.start()
                case .postgres:
                    try await cluster.postgres.restart(downtime: .milliseconds(Int64(random.next() % 2000)))
                case .failover:
                    _ = try await cluster.postgres.failOver()
                }
                let recovered = await cluster.waitForRecovery(scene, since: ContinuousClock.now, timeout: .seconds(45))
                await cluster.expect(recovered != nil, "no recovery after \(fault.rawValue) of \(victim.name)", showing: scene)
                guard recovered != nil else { break }
                survived[fault, default: 0] += 1
                // The promoted primary gets a standby again, for the next failover.
                if fault == .failover { try await cluster.postgres.rebuildStandby() }
                recoveries.append(ContinuousClock.now - injected)
                print("chaos: \(fault.rawValue)\(fault.isStore ? "" : " of \(victim.name)") survived, recovered \(seconds(ContinuousClock.now - injected)) after the fault began")
                try? await Task.sleep(for: .milliseconds(Int64(500 + random.next() % 2500)))
            }
            await scene.stopLoad()
            await wire.stop()
            await monotonic.stop()
            let tally = try await webhooks?.drainAndTally(cluster, loadStopped: ContinuousClock.now, stall: .seconds(60), timeout: .seconds(600))

            // One owner per reader: PostgreSQL's, and the only lane whose command works.
            let rows = try await cluster.database.ownership()
            for (index, id) in scene.readerIDs.enumerated() {
                let lane = scene.lanes[index]
                guard let session = rows[id]?.session else { continue }
                cluster.expect(session == lane.sessionID, "\(id) is owned by \(rows[id]?.lane ?? "-"), not \(lane.label)")
                for other in scene.lanes where other !== lane && other.terminal.connectedReader?.id == id {
                    cluster.expect(false, "\(other.label) also believes it owns \(id)")
                }
            }
            cluster.expect(cluster.doubleOwners(scene).isEmpty, "\(cluster.doubleOwners(scene))")
            cluster.expect(monotonic.violations.isEmpty, "generations or epochs went back: \(monotonic.violations)")
            cluster.expect(scene.lost.isEmpty, "commands lost: \(scene.lost)")
            let problems = try await cluster.historyProblems(scene.readerIDs + wire.readerIDs)
            cluster.expect(problems.isEmpty, "history: \(problems)")
            // The history agrees with what the lanes were told.
            for (index, id) in scene.readerIDs.enumerated() {
                let lane = scene.lanes[index]
                let history = try await cluster.database.history(id).filter { $0.reason != "refused_busy" }
                for generation in scene.loads[index].snapshot.granted {
                    cluster.expect(
                        history.contains { $0.generation == Int64(generation) && $0.to == lane.sessionID },
                        "\(lane.label) was granted generation \(generation) of \(id), the history does not say so"
                    )
                }
                for told in lane.disconnects where told.readerID == id {
                    // The change right after the generation it held (one above it, or a new
                    // timeline's floor after a PostgreSQL failover) took the reader from it.
                    cluster.expect(
                        history.first { $0.generation > Int64(told.generation) }?.from == lane.sessionID,
                        "\(lane.label) was told it lost generation \(told.generation) of \(id) (\(told.reason)), the history does not say so"
                    )
                }
            }
            let total = survived.values.reduce(0, +)
            let slowest = recoveries.max().map(seconds) ?? "-"
            // Every resume answer and refusal the raw lanes got agreed with PostgreSQL.
            print(wire.summary)
            cluster.expect(wire.violations.isEmpty, "\(wire.violations.count) answers disagreed with PostgreSQL:\n\(wire.violations.prefix(20).map(\.description).joined(separator: "\n"))")
            if let tally {
                print(tally)
                cluster.expect(tally.missing.isEmpty, "\(tally.missing.count) events never reached the receiver: \(tally.missing.prefix(20))")
                cluster.expect(tally.orderViolations.isEmpty, "per-reader order: \(tally.orderViolations.prefix(20))")
                cluster.expect(tally.badSignatures == 0 && tally.unknown.isEmpty, "\(tally.badSignatures) bad signatures, not in the log: \(tally.unknown.prefix(20))")
                cluster.expect(tally.produced > 0 && tally.receivedDistinct == tally.produced, "produced \(tally.produced), received \(tally.receivedDistinct)")
            }
            print("chaos: survived \(total) faults in \(seconds(ContinuousClock.now - began)) (\(Fault.allCases.map { "\($0.rawValue): \(survived[$0] ?? 0)" }.joined(separator: ", "))); slowest recovery \(slowest); \(scene.completed) commands completed, retried \(scene.retried), lost \(scene.lost.count); lanes reconnected \(scene.loads.map { $0.snapshot.reconnects.count }.reduce(0, +)) times")
        }
    }
}
