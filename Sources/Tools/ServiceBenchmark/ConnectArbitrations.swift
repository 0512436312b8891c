import BenchmarkSupport
import Foundation
import GatewayClient
import GatewayPostgres
import GatewayRepositories
import GatewayTransport
import Synchronization

/// Connect arbitrations through the whole service: per reader, two lanes each connect it in
/// a closed loop of their own (`ConnectReader`, failIfInUse false), so both contend at once:
/// 16 claimants over 8 readers, as pgbench's 16 clients over the same 8. Nearly every claim
/// takes the reader from the other lane (the displaced lane's event, the store's claim, the
/// reader told its new owner); a lane that claims again before the other's claim is decided
/// is already the owner, and its claim changes nothing. The benchmark reports the share of
/// takeovers on both sides (`ConnectCosts.ownershipChanges`).
struct ConnectArbitrations {
    struct Contender: Sendable {
        let lane: TerminalClient
        let reader: DiscoveredReader
    }

    /// Every lane with the reader it connects (two lanes per reader).
    var contenders: [Contender]

    /// Connects per second over `duration` after `warmup`, the failures seen, and every connect
    /// made (the warm-up's too).
    func run(warmup: Duration, duration: Duration) async -> (connects: Int, seconds: Double, failures: Int, all: Int) {
        let counter = RoundTripCounter()
        return await withTaskGroup(of: Void.self) { tasks in
            startContenders(counter, limit: nil, in: &tasks)
            try? await Task.sleep(for: warmup)
            counter.measuring.store(true, ordering: .relaxed)
            let start = ContinuousClock.now
            try? await Task.sleep(for: duration)
            counter.measuring.store(false, ordering: .relaxed)
            let elapsed = ContinuousClock.now - start
            counter.stop.store(true, ordering: .relaxed)
            await tasks.waitForAll()
            return (counter.count.load(ordering: .relaxed), elapsed.seconds, counter.failures.load(ordering: .relaxed), counter.all.load(ordering: .relaxed))
        }
    }

    /// Like ``run(warmup:duration:)`` with lean lanes (transport handlers, no tasks, like the
    /// relay mode's): each lane loops on a TLS connection of its own with its session's token.
    /// The load's own CPU, which shares the machine with the gateway and PostgreSQL, is then
    /// closer to pgbench's.
    func runLean(port: Int, context: TLSContext, group: EventLoopGroup, warmup: Duration, duration: Duration) async -> (connects: Int, seconds: Double, failures: Int, all: Int) {
        let counter = RoundTripCounter()
        for contender in contenders {
            guard let token = contender.lane.session?.resumeToken else { continue }
            let lane = LeanLane.connecting(sessionToken: token, reader: contender.reader.id, discoveryID: contender.reader.discoveryID, counter: counter)
            TLSClient.connect(host: "127.0.0.1", port: port, serverName: "localhost", context: context, on: group.next()) { _ in lane }
        }
        try? await Task.sleep(for: warmup)
        counter.measuring.store(true, ordering: .relaxed)
        let start = ContinuousClock.now
        try? await Task.sleep(for: duration)
        counter.measuring.store(false, ordering: .relaxed)
        let elapsed = ContinuousClock.now - start
        counter.stop.store(true, ordering: .relaxed)
        // The calls in flight finish; the lanes then stay idle.
        try? await Task.sleep(for: .milliseconds(200))
        return (counter.count.load(ordering: .relaxed), elapsed.seconds, counter.failures.load(ordering: .relaxed), counter.all.load(ordering: .relaxed))
    }

    /// Exactly `count` connects (give or take one per lane), counted from the first: for
    /// instruction counts (callgrind), where two counts' difference leaves the set-up out.
    func run(count: Int) async -> (connects: Int, seconds: Double, failures: Int) {
        let counter = RoundTripCounter()
        counter.measuring.store(true, ordering: .relaxed)
        let start = ContinuousClock.now
        await withTaskGroup(of: Void.self) { tasks in
            startContenders(counter, limit: count, in: &tasks)
            await tasks.waitForAll()
        }
        return (counter.count.load(ordering: .relaxed), (ContinuousClock.now - start).seconds, counter.failures.load(ordering: .relaxed))
    }

    /// One closed loop per lane, connecting its reader until `stop` (or until `limit` connects
    /// were counted).
    private func startContenders(_ counter: RoundTripCounter, limit: Int?, in tasks: inout TaskGroup<Void>) {
        for contender in contenders {
            tasks.addTask {
                while !counter.stop.load(ordering: .relaxed) {
                    if let limit, counter.count.load(ordering: .relaxed) >= limit { return }
                    do {
                        try await contender.lane.connectReader(contender.reader, failIfInUse: false)
                        counter.all.wrappingAdd(1, ordering: .relaxed)
                        if counter.measuring.load(ordering: .relaxed) { counter.count.wrappingAdd(1, ordering: .relaxed) }
                    } catch {
                        counter.failures.wrappingAdd(1, ordering: .relaxed)
                        if counter.failures.load(ordering: .relaxed) > 100 { return }
                    }
                }
            }
        }
    }
}

/// The ownership benchmark's peer on the service's own PostgreSQL server: pgbench running
/// the statement a connect sends (`OwnershipStore.connectStatement`: the claim and the
/// reader's row), or the bare claim (`OwnershipStore.claimStatement`), with `clients`
/// claimants over `readers` readers picked at random, so most claims take a reader over, as
/// the lanes' do.
enum PgbenchClaims {
    /// Which statement pgbench runs.
    enum Statement: String {
        /// What a connect sends: the claim and the claimed reader's row.
        case connect
        /// The claim alone.
        case claim
    }

    static func prepare(_ client: PostgresClient, readers: Int, sessions: Int) async throws {
        try await ClaimBenchmarkRows.seed(client, name: name, readers: readers, sessions: sessions)
    }

    /// The name of pgbench's rows (their account is `acct_<name>`).
    static let name = "pgbench"
    /// The location of pgbench's readers (`ClaimBenchmarkRows.seed`).
    static let location = "loc_" + name

    /// pgbench's tps (excluding connection time).
    /// `protocol` is pgbench's `-M`: `extended` (parse and plan every time, as the peer)
    /// or `prepared`.
    static func run(
        _ statement: Statement, executable: String, connectionString: String, clients: Int, readers: Int, seconds: Int, directory: String,
        protocol: String = "extended"
    ) throws -> Double {
        let scriptPath = directory + "/\(statement.rawValue).pgbench"
        let sql = statement == .connect ? OwnershipStore.connectStatement : OwnershipStore.claimStatement
        try PgbenchClaimScript.make(claimSQL: sql, readers: readers).write(toFile: scriptPath, atomically: true, encoding: .utf8)
        let outputPath = directory + "/pgbench.out"
        let status = try ChildProcessRunner.run(
            executable,
            [
                "-n", "-c", String(clients), "-j", String(min(2, clients)), "-T", String(seconds), "-M", `protocol`,
                "-D", "account=acct_\(name)", "-f", scriptPath, connectionString,
            ],
            outputPath: outputPath
        )
        let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        guard status == 0,
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix("tps = ") }),
              let tps = Double(line.dropFirst("tps = ".count).split(separator: " ").first ?? "")
        else { throw PgbenchFailed(output: text) }
        return tps
    }

    struct PgbenchFailed: Error, CustomStringConvertible {
        var output: String
        var description: String { "pgbench failed: \(output)" }
    }
}
