// service-bench: relayed command round trips through the whole gateway.
//
// Starts a throwaway PostgreSQL and the gateway service in this process, attaches N readers
// (mutual TLS, answering every command at once) and N lanes (TerminalClient), connects lane i
// to reader i, then each lane sends SetReaderDisplay in a closed loop:
// lane → gateway → reader → gateway → lane, both legs TLS. Prints one JSON line.
//
//   service-bench --pairs 16 --duration 5s --warmup 1s
//
// With --lanes websocket, the lanes' measured connections use the WebSocket binding on the
// same TLS port (the upgrade, then one masked binary message per protocol frame), as a browser
// lane does; the readers stay on raw frames.
//
// With --mode connect: N readers, two lanes each taking the reader over from the other
// in a closed loop (ConnectReader, failIfInUse false), beside pgbench running the
// ownership store's one-statement claim on the same PostgreSQL server in the same run.
//
// With --mode auth-flood: --guesses wrong secret keys from --addresses loopback addresses
// (127.0.0.2 and up) while one admin with the correct key calls ListReaders in a loop from
// 127.0.0.1: the admin's p50/p99 before and during the flood, the flood's answers, CPU.
import Foundation
import GatewayClient
import GatewayCore
import GatewayOperations
import GatewayService
import GatewayTestSupport
import GatewayTransport
import GatewayWire
import GatewayWireClients
import Synchronization

let parser = OptionsParser(
    program: "service-bench",
    summary: "relayed command round trips through the gateway (lane → gateway → reader and back, TLS both legs)",
    environmentPrefix: "SERVICE_BENCH",
    options: [
        .value("pairs", "N", default: "16", help: "Lane/reader pairs."),
        .value("duration", "DURATION", default: "5s", help: "Measured time."),
        .value("warmup", "DURATION", default: "1s", help: "Time before measuring."),
        .value("loops", "N", default: "2", help: "Gateway event loops."),
        .value("label", "TEXT", default: "gateway relay", help: "Label in the JSON line."),
        .value("mode", "MODE", default: "relay", help: "relay: relayed command round trips; connect: connect arbitrations beside pgbench; auth-flood: wrong keys from several addresses beside an admin."),
        .value("addresses", "N", default: "10", help: "Auth-flood mode: loopback source addresses of the flood (127.0.0.2 and up)."),
        .value("guesses", "N", default: "10000", help: "Auth-flood mode: wrong keys sent in all."),
        .value("guesses-in-flight", "N", default: "8", help: "Auth-flood mode: calls in flight per address."),
        .value("flood-duration", "DURATION", default: "0s", help: "Auth-flood mode: keep guessing at least this long (0: exactly --guesses)."),
        .value("guesses-per-second", "N", default: "0", help: "Auth-flood mode: pace the flood at N guesses a second in all (0: as fast as answered, --guesses-in-flight per address)."),
        .value("lanes", "CARRIER", default: "raw", help: "relay: how lanes reach the gateway: raw (frames on TLS) or websocket (the WebSocket binding on TLS)."),
        .value("pgbench", "PATH", default: "/usr/lib/postgresql/15/bin/pgbench", help: "The pgbench executable (connect mode)."),
        .value("pgbench-protocol", "MODE", default: "extended", help: "Connect mode: pgbench's -M (extended or prepared)."),
        .value("connect-lanes", "KIND", default: "client", help: "Connect mode: client (the client library's lanes) or lean (transport handlers); either way every lane connects its reader in a loop of its own."),
        .value("rounds", "N", default: "1", help: "Connect mode: interleaved rounds (the service, then pgbench)."),
        .value("connect-batches-in-flight", "N", default: "1", help: "The gateway's --connect-batches-in-flight (at most the pool's 8 connections)."),
        .value("connects", "N", default: "0", help: "Connect mode: exactly N connects, no pgbench (for callgrind); 0: timed rounds."),
        .value("release-buffers-after", "DURATION", default: "20ms", help: "The gateway's --release-buffers-after (off keeps every connection's TLS buffers)."),
    ]
)

func fail(_ message: String) -> Never {
    // The options parser's errors already start with the program's name.
    let line = message.hasPrefix("service-bench: ") ? message : "service-bench: \(message)"
    FileHandle.standardError.write(Data("\(line)\n".utf8))
    exit(1)
}

let options: ParsedOptions
do { options = try parser.parse(arguments: Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment) } catch {
    fail("\(error)")
}
if options.helpRequested {
    print(parser.helpText(), terminator: "")
    exit(0)
}
LoggingSystem.shared.bootstrap(level: .warning, format: .logfmt)

/// An option's value; a malformed one ends the run with its message (never a silent default).
func parsed<T>(_ read: @autoclosure () throws(OptionsError) -> T?) -> T? {
    do { return try read() } catch { fail("\(error)") }
}

let pairs = parsed(try options.int("pairs", in: 1...4096)) ?? 16
let duration = parsed(try options.duration("duration")) ?? .seconds(5)
let warmup = parsed(try options.duration("warmup")) ?? .seconds(1)
let loopCount = parsed(try options.int("loops", in: 1...64)) ?? 2
let label = options.string("label") ?? "gateway relay"
let mode = options.string("mode") ?? "relay"
guard mode == "relay" || mode == "connect" || mode == "auth-flood" else { fail("--mode must be relay, connect or auth-flood") }
let floodAddresses = parsed(try options.int("addresses", in: 1...250)) ?? 10
let floodGuesses = parsed(try options.int("guesses", in: 1...10_000_000)) ?? 10_000
let guessesInFlight = parsed(try options.int("guesses-in-flight", in: 1...64)) ?? 8
let floodDuration = parsed(try options.duration("flood-duration")) ?? .zero
let guessesPerSecond = parsed(try options.int("guesses-per-second", in: 0...10_000_000)) ?? 0
let pgbenchPath = options.string("pgbench") ?? "/usr/lib/postgresql/15/bin/pgbench"
let rounds = parsed(try options.int("rounds", in: 1...100)) ?? 1
let pgbenchProtocol = options.string("pgbench-protocol") ?? "extended"
let laneKind = options.string("connect-lanes") ?? "client"
guard laneKind == "client" || laneKind == "lean" else { fail("--connect-lanes must be client or lean") }
guard pgbenchProtocol == "extended" || pgbenchProtocol == "prepared" else { fail("--pgbench-protocol must be extended or prepared") }
let connectBatchesInFlight = parsed(try options.int("connect-batches-in-flight", in: 1...8)) ?? 1
let fixedConnects = parsed(try options.int("connects", in: 0...10_000_000)).flatMap { $0 > 0 ? $0 : nil }
// A fixed count runs the client library's lanes only (ConnectArbitrations.run(count:)).
if fixedConnects != nil, laneKind == "lean" { fail("--connects runs the client library's lanes; leave out --connect-lanes lean") }
let laneCarrier = options.string("lanes") ?? "raw"
let releaseBuffersAfter = parsed(try options.durationOrOff("release-buffers-after")) ?? ConnectionLimits.defaultReleaseBuffersAfter
guard laneCarrier == "raw" || laneCarrier == "websocket" else { fail("--lanes must be raw or websocket") }

/// CPU time of this process's threads whose name starts with `prefix`, in seconds, from
/// `/proc/self/task/*/schedstat` (nanoseconds on the CPU): the gateway's loops (`rg-loop-*`)
/// apart from the load's (`bench-loop-*`).
func threadCPUSeconds(namePrefix prefix: String) -> Double {
    let tasks = "/proc/self/task"
    guard let threads = try? FileManager.default.contentsOfDirectory(atPath: tasks) else { return 0 }
    var total = 0.0
    for thread in threads {
        guard let name = try? String(contentsOfFile: "\(tasks)/\(thread)/comm", encoding: .utf8), name.hasPrefix(prefix),
              let stat = try? String(contentsOfFile: "\(tasks)/\(thread)/schedstat", encoding: .utf8),
              let nanoseconds = stat.split(separator: " ").first.flatMap({ Double($0) })
        else { continue }
        total += nanoseconds / 1e9
    }
    return total
}

/// CPU time of this whole process (gateway, readers and lanes), in seconds.
func processCPUSeconds() -> Double {
    var usage = rusage()
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

func run() async throws {
    let database = try await TestPostgres.database(maximumConnections: 8)
    // Earlier test runs' clusters are removed as the server starts: not while measuring.
    try await TestPostgres.leftoversRemoved()
    let directory = TestPostgres.makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let authority = try CertificateAuthority.create(commonName: "bench CA")
    let caPath = directory + "/ca.pem"
    try authority.write(certificatePath: caPath, keyPath: directory + "/ca-key.pem")
    let server = try authority.issue(
        CertificateRequest(commonName: "localhost", dnsNames: ["localhost"], ipAddresses: ["127.0.0.1"], usage: .server),
        writingTo: directory, name: "server"
    )
    var service = ServiceConfiguration()
    service.discoveryBurst = 2 * pairs + 10
    // The lean readers do not heartbeat; the run is far shorter than this.
    service.readerOfflineBound = .seconds(600)
    // One replica, which under callgrind runs tens of times slower: a node lease of 10 s would
    // run out between its heartbeats, and the replica would drop its links and sessions as reaped.
    service.nodeLease = .seconds(600)
    service.connectBatchesInFlight = connectBatchesInFlight
    var listener = GatewayListenerConfiguration(host: "127.0.0.1", port: 0, certificate: server, readerCAPath: caPath, loopCount: loopCount)
    listener.releaseBuffersAfter = releaseBuffersAfter
    let host = GatewayServiceHost(
        listener: listener,
        service: service, client: database.client, metrics: GatewayMetrics(callMethods: GatewayServiceHost.methodNames, includeProcessMetrics: false),
        closeGracePeriod: .milliseconds(200)
    )
    let running = try await RunningPart.start(host)
    guard let port = host.localAddress?.port else { fail("the gateway has no bound port") }
    let account = try await DevelopmentAccount.create(name: "bench", client: database.client)
    let clients = try EventLoopGroup(loopCount: 2, threadNamePrefix: "bench-loop")
    func configuration(certificate: CertificateKeyPair? = nil) -> ClientChannelConfiguration {
        ClientChannelConfiguration(
            host: "127.0.0.1", port: port, serverName: "localhost", trustedCAPath: caPath, clientCertificate: certificate, keepalive: nil
        )
    }
    let admin = AdminClient(connection: GatewayConnection(configuration(), group: clients), secretKey: account.secretKey)
    let location = try await admin.createLocation(displayName: "Bench store").id
    let serials = (1...pairs).map { String(format: "BENCH%06d", $0) }
    let readers = try await admin.registerReaders(serials: serials, labelPrefix: "Bench", locationID: location, deviceType: .simulatedWiseposE)

    // Readers: transport handlers answering every command at once (mutual TLS), from a template
    // checked here against the generated encoder.
    guard LeanCommandAnswer.matchesGeneratedCode() else { fail("the lean readers' answer differs from the generated encoder's") }
    for serial in serials {
        let certificate = try authority.issue(CertificateRequest(commonName: serial, subjectSerialNumber: serial, usage: .client), writingTo: directory, name: serial)
        let context = try TLSContext(client: TLSClientConfiguration(trustedCAPath: caPath, certificate: certificate))
        TLSClient.connect(host: "127.0.0.1", port: port, serverName: "localhost", context: context, on: clients.next()) { _ in
            LeanReader(serial: serial)
        }
    }
    // Wait until every reader is online.
    let deadline = ContinuousClock.now + .seconds(30)
    while try await admin.listReaders(locationID: location, networkStatus: .online).count < pairs {
        guard ContinuousClock.now < deadline else { fail("readers did not come online") }
        try await Task.sleep(for: .milliseconds(50))
    }
    if mode == "auth-flood" {
        let line = try await AuthFlood.run(
            admin: admin, port: port, caPath: caPath, clients: clients, addresses: floodAddresses, guesses: floodGuesses, inFlight: guessesInFlight,
            baseline: duration, sustained: floodDuration, perSecond: guessesPerSecond
        )
        FileHandle.standardOutput.write(Data(line.utf8))
        try await running.stop()
        await database.close()
        return
    }
    let token = try await admin.createConnectionToken(locationID: location).secret
    if mode == "connect" {
        try await measureConnects(
            token: token, location: location, readers: readers.map(\.id), database: database, directory: directory, configuration: configuration,
            clients: clients, port: port, caPath: caPath
        )
        try await running.stop()
        await database.close()
        return
    }
    var lanes: [TerminalClient] = []
    for index in 0..<pairs {
        let lane = TerminalClient(connection: GatewayConnection(configuration(), group: clients))
        _ = try await lane.openSession(connectionToken: token, posDeviceID: "bench-\(index)", laneLabel: "Lane \(index + 1)")
        let found = try await lane.discoverReaders(locationID: location)
        guard let reader = found.first(where: { $0.id == readers[index].id }) else { fail("reader \(index) not discovered") }
        _ = try await lane.connectReader(reader, failIfInUse: true)
        lanes.append(lane)
    }

    // Lanes: the sessions above, each driven by a transport handler on its own connection.
    let counter = RoundTripCounter()
    // WebSocket lanes offer HTTP/1.1 in ALPN, as browsers do.
    let laneContext = try TLSContext(client: TLSClientConfiguration(trustedCAPath: caPath, alpnProtocols: laneCarrier == "websocket" ? ["http/1.1"] : []))
    // In batches of 32: the gateway keeps at most 64 handshakes in flight per source address
    // (maxHandshakingPerSource) and evicts the oldest beyond that, so all 256 lanes launched at
    // once from 127.0.0.1 would leave only about 64 of them connected.
    let opened = ContinuousClock.now + .seconds(180)
    for (index, lane) in lanes.enumerated() {
        guard let token = lane.session?.resumeToken else { fail("a lane has no session") }
        TLSClient.connect(host: "127.0.0.1", port: port, serverName: "localhost", context: laneContext, on: clients.next()) { _ -> any ConnectionHandler in
            if laneCarrier == "websocket" { return LeanWebSocketLane(sessionToken: token, host: "localhost:\(port)", counter: counter) }
            return LeanLane(sessionToken: token, counter: counter)
        }
        guard (index + 1) % 32 == 0 || index + 1 == lanes.count else { continue }
        while counter.opened.load(ordering: .relaxed) < index + 1 {
            guard ContinuousClock.now < opened, counter.failures.load(ordering: .relaxed) == 0 else {
                fail("lanes did not open (\(counter.opened.load(ordering: .relaxed)) of \(index + 1), \(counter.failures.load(ordering: .relaxed)) failed)")
            }
            try await Task.sleep(for: .milliseconds(5))
        }
    }
    try await Task.sleep(for: warmup)
    // PostgreSQL's share: its CPU and the command outcome events written in the measured window.
    let postmaster = ConnectCosts.postmasterPID(clusterDirectory: try await TestPostgres.server().clusterDirectory)
    let eventsBefore = try await RelayEventLog.written(database.client)
    counter.measuring.store(true, ordering: .relaxed)
    let postgresStart = postmaster.map { ConnectCosts.postgresCPUSeconds(postmaster: $0) } ?? 0
    let start = ContinuousClock.now
    let cpuStart = processCPUSeconds()
    let gatewayStart = threadCPUSeconds(namePrefix: "rg-loop")
    let loadStart = threadCPUSeconds(namePrefix: "bench-loop")
    let releasesStart = host.tlsBuffersReleased
    try await Task.sleep(for: duration)
    counter.measuring.store(false, ordering: .relaxed)
    let elapsed = ContinuousClock.now - start
    let cpu = processCPUSeconds() - cpuStart
    // Every thread but the load's: the gateway's loops and whatever else it runs (tasks, PostgreSQL client).
    let gatewayProcessCPU = cpu - (threadCPUSeconds(namePrefix: "bench-loop") - loadStart)
    let gatewayCPU = threadCPUSeconds(namePrefix: "rg-loop") - gatewayStart
    let loadCPU = threadCPUSeconds(namePrefix: "bench-loop") - loadStart
    let postgresCPU = (postmaster.map { ConnectCosts.postgresCPUSeconds(postmaster: $0) } ?? 0) - postgresStart
    let releases = host.tlsBuffersReleased - releasesStart
    counter.stop.store(true, ordering: .relaxed)
    let eventLog = try await RelayEventLog.measured(database.client, before: eventsBefore)
    if counter.failures.load(ordering: .relaxed) > 0 { fail("\(counter.failures.load(ordering: .relaxed)) relayed commands failed") }
    let total = counter.count.load(ordering: .relaxed)
    let rate = Double(total) / elapsed.seconds
    FileHandle.standardOutput.write(Data(("{\"label\": \"\(label)\", \"lanes\": \"\(laneCarrier)\", \"pairs\": \(pairs), \"round_trips\": \(total), \"round_trips_all\": \(counter.all.load(ordering: .relaxed)), \"seconds\": \(String(format: "%.3f", elapsed.seconds)), \"round_trips_per_second\": \(String(format: "%.1f", rate)), \"process_cpu_us_per_round_trip\": \(String(format: "%.1f", total > 0 ? cpu * 1e6 / Double(total) : 0)), "
        + "\"gateway_threads_cpu_us_per_round_trip\": \(String(format: "%.1f", total > 0 ? gatewayProcessCPU * 1e6 / Double(total) : 0)), "
        + "\"gateway_loops_cpu_us_per_round_trip\": \(String(format: "%.1f", total > 0 ? gatewayCPU * 1e6 / Double(total) : 0)), "
        + "\"load_loops_cpu_us_per_round_trip\": \(String(format: "%.1f", total > 0 ? loadCPU * 1e6 / Double(total) : 0)), "
        + "\"postgres_cpu_us_per_round_trip\": \(String(format: "%.1f", total > 0 ? postgresCPU * 1e6 / Double(total) : 0)), "
        + "\"gateway_buffer_releases_per_round_trip\": \(String(format: "%.3f", total > 0 ? Double(releases) / Double(total) : 0)), "
        + eventLog.fields + "}\n").utf8))
    try await running.stop()
    await database.close()
}

/// Connect mode: two lanes per reader each connect it in a loop of their own; then pgbench runs
/// the same claim statement on the same server with as many claimants, in `rounds` interleaved
/// rounds.
/// One JSON line per round with both sides' rates and CPU per connect (this process: gateway,
/// lanes and readers; the PostgreSQL server; pgbench), and the statements per connect when the
/// server loads `pg_stat_statements`. With `--connects N`: exactly N connects and no pgbench
/// (for instruction counts: run it twice under callgrind with two counts and take the difference).
func measureConnects(
    token: String, location: String, readers: [String], database: TestDatabase, directory: String,
    configuration: (CertificateKeyPair?) -> ClientChannelConfiguration, clients: EventLoopGroup, port: Int, caPath: String
) async throws {
    var contenders: [ConnectArbitrations.Contender] = []
    for (index, readerID) in readers.enumerated() {
        for side in 0..<2 {
            let lane = TerminalClient(connection: GatewayConnection(configuration(nil), group: clients))
            _ = try await lane.openSession(connectionToken: token, posDeviceID: "bench-\(index)-\(side)", laneLabel: "Lane \(index + 1)\(side == 0 ? "a" : "b")")
            let found = try await lane.discoverReaders(locationID: location)
            guard let reader = found.first(where: { $0.id == readerID }) else { fail("reader \(index) not discovered") }
            contenders.append(ConnectArbitrations.Contender(lane: lane, reader: reader))
        }
    }
    let arbitrations = ConnectArbitrations(contenders: contenders)
    if let fixed = fixedConnects {
        FileHandle.standardError.write(Data("service-bench: \(2 * readers.count) lanes ready, running \(fixed) connects\n".utf8))
        let measured = await arbitrations.run(count: fixed)
        if measured.failures > 0 { fail("\(measured.failures) connects failed") }
        FileHandle.standardOutput.write(Data("{\"label\": \"\(label)\", \"readers\": \(readers.count), \"connects\": \(measured.connects), \"seconds\": \(String(format: "%.3f", measured.seconds))}\n".utf8))
        return
    }
    let server = try await TestPostgres.server()
    guard let postmaster = ConnectCosts.postmasterPID(clusterDirectory: server.clusterDirectory) else { fail("cannot read the PostgreSQL server's pid") }
    let statements = await StatementCounter.make(database.client)
    try await PgbenchClaims.prepare(database.client, readers: readers.count, sessions: 2 * readers.count)
    let seconds = max(1, Int(duration.seconds.rounded()))
    let laneContext = try TLSContext(client: TLSClientConfiguration(trustedCAPath: caPath))
    FileHandle.standardError.write(Data("service-bench: \(2 * readers.count) lanes ready, measuring connects in \(rounds) rounds\n".utf8))
    for round in 1...rounds {
        let before = try await statements?.calls()
        let changesBefore = try await ConnectCosts.ownershipChanges(database.client, location: location)
        let cpuStart = processCPUSeconds()
        let threadsStart = ThreadCPU.sample()
        let postgresStart = ConnectCosts.postgresCPUSeconds(postmaster: postmaster)
        let measured = laneKind == "lean"
            ? await arbitrations.runLean(port: port, context: laneContext, group: clients, warmup: warmup, duration: duration)
            : await arbitrations.run(warmup: warmup, duration: duration)
        let cpu = processCPUSeconds() - cpuStart
        let threads = ThreadCPU.sample() - threadsStart
        let postgresCPU = ConnectCosts.postgresCPUSeconds(postmaster: postmaster) - postgresStart
        let after = try await statements?.calls()
        let changes = try await ConnectCosts.ownershipChanges(database.client, location: location) - changesBefore
        if measured.failures > 0 { fail("\(measured.failures) connects failed") }
        let rate = Double(measured.connects) / measured.seconds
        var perStatement: [String: Int] = [:]
        if let before, let after { perStatement = StatementCounter.difference(after, before) }
        // Statements are counted over the warm-up and the measured time: per connect made in both.
        let connectsInWindow = Double(max(1, measured.all))
        if round == 1, !perStatement.isEmpty {
            for (query, calls) in perStatement.sorted(by: { $0.value > $1.value }).prefix(8) {
                let text = query.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
                FileHandle.standardError.write(Data("service-bench: \(String(format: "%.2f", Double(calls) / connectsInWindow)) per connect: \(text.prefix(100))\n".utf8))
            }
        }
        // pgbench on what a connect sends (the goal's peer), then on the bare claim.
        let peer = try await pgbenchRound(.connect)
        let bareClaim = try await pgbenchRound(.claim)
        func perConnect(_ seconds: Double) -> String { String(format: "%.1f", measured.connects > 0 ? seconds * 1e6 / Double(measured.connects) : 0) }
        let statementsPerConnect = perStatement.isEmpty ? 0 : Double(perStatement.values.reduce(0, +)) / connectsInWindow
        let line = "{\"label\": \"\(label)\", \"round\": \(round), \"readers\": \(readers.count), \"lanes\": \(2 * readers.count), \"connects\": \(measured.connects), "
            + "\"seconds\": \(String(format: "%.3f", measured.seconds)), \"connects_per_second\": \(String(format: "%.1f", rate)), "
            + "\"process_cpu_us_per_connect\": \(String(format: "%.1f", measured.connects > 0 ? cpu * 1e6 / Double(measured.connects) : 0)), "
            + "\"gateway_loops_cpu_us_per_connect\": \(perConnect(threads.gatewayLoops)), \"store_thread_cpu_us_per_connect\": \(perConnect(threads.store)), "
            + "\"load_loops_cpu_us_per_connect\": \(perConnect(threads.loadLoops)), \"other_threads_cpu_us_per_connect\": \(perConnect(threads.other)), "
            + "\"pgbench_protocol\": \"\(pgbenchProtocol)\", \"lanes_kind\": \"\(laneKind)\", \"connect_batches_in_flight\": \(connectBatchesInFlight), "
            + "\"postgres_cpu_us_per_connect\": \(String(format: "%.1f", measured.connects > 0 ? postgresCPU * 1e6 / Double(measured.connects) : 0)), "
            + "\"statements_per_connect\": \(String(format: "%.2f", statementsPerConnect)), "
            + "\"takeover_share\": \(String(format: "%.3f", Double(changes) / connectsInWindow)), "
            + peer.fields(prefix: "pgbench") + bareClaim.fields(prefix: "pgbench_bare_claim")
            + "\"ratio_to_bare_claim\": \(String(format: "%.3f", bareClaim.rate > 0 ? rate / bareClaim.rate : 0)), "
            + "\"ratio\": \(String(format: "%.3f", peer.rate > 0 ? rate / peer.rate : 0))}\n"
        FileHandle.standardOutput.write(Data(line.utf8))
    }

    /// One pgbench run beside the round: its rate and its CPU, and the server's, per claim.
    func pgbenchRound(_ statement: PgbenchClaims.Statement) async throws -> PgbenchRound {
        let changesBefore = try await ConnectCosts.ownershipChanges(database.client, location: PgbenchClaims.location)
        let pgbenchCPUStart = ConnectCosts.reapedChildrenCPUSeconds()
        let postgresStart = ConnectCosts.postgresCPUSeconds(postmaster: postmaster)
        let rate = try PgbenchClaims.run(
            statement, executable: pgbenchPath, connectionString: database.connectionString, clients: 2 * readers.count,
            readers: readers.count, seconds: seconds, directory: directory, protocol: pgbenchProtocol
        )
        // pgbench's backends end with it; the postmaster reaps them (and adds their CPU) a moment later.
        try await Task.sleep(for: .milliseconds(300))
        let claims = rate * Double(seconds)
        let changes = try await ConnectCosts.ownershipChanges(database.client, location: PgbenchClaims.location) - changesBefore
        return PgbenchRound(
            rate: rate,
            takeoverShare: claims > 0 ? Double(changes) / claims : 0,
            cpuPerClaim: claims > 0 ? (ConnectCosts.reapedChildrenCPUSeconds() - pgbenchCPUStart) * 1e6 / claims : 0,
            postgresCPUPerClaim: claims > 0 ? (ConnectCosts.postgresCPUSeconds(postmaster: postmaster) - postgresStart) * 1e6 / claims : 0
        )
    }
}

/// What one pgbench run beside a connect round measured.
struct PgbenchRound {
    var rate: Double
    /// Claims that took the reader from another session, of all claims (pgbench's count of
    /// claims is its rate times the seconds).
    var takeoverShare: Double
    var cpuPerClaim: Double
    var postgresCPUPerClaim: Double

    /// Its JSON fields (claims/s, pgbench's CPU and the server's per claim), each named after `prefix`.
    func fields(prefix: String) -> String {
        "\"\(prefix)_claims_per_second\": \(String(format: "%.1f", rate)), \"\(prefix)_cpu_us_per_claim\": \(String(format: "%.1f", cpuPerClaim)), "
            + "\"postgres_cpu_us_per_\(prefix)_claim\": \(String(format: "%.1f", postgresCPUPerClaim)), "
            + "\"\(prefix)_takeover_share\": \(String(format: "%.3f", takeoverShare)), "
    }
}

let done = DispatchSemaphore(value: 0)
let status = Mutex<Int32>(0)
Task.detached {
    do { try await run() } catch {
        FileHandle.standardError.write(Data("service-bench: \(error)\n".utf8))
        status.withLock { $0 = 1 }
    }
    done.signal()
}
done.wait()
// Straight out: the client loops and connections are still up, and atexit handlers
// (OpenSSL's among them) must not race them.
_exit(status.withLock { $0 })
