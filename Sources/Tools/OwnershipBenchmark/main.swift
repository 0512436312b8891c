// ownership-bench: claims per second and latency of OwnershipStore.claim beside pgbench running
// the same one-statement claim against the same server, at the same client counts, in one run.
import BenchmarkSupport
import Foundation
import GatewayCore
import GatewayDomain
import GatewayPostgres
import GatewayRepositories

let parser = OptionsParser(
    program: "ownership-bench",
    summary: "Claims/s and p50/p99 of OwnershipStore.claim beside pgbench running the same SQL.",
    environmentPrefix: "OWNERSHIP_BENCH",
    options: [
        .value("url", "URL", default: nil, help: "PostgreSQL server (a database named ownership_bench is recreated on it)."),
        .value("clients", "LIST", default: "1,8,32,64", help: "Concurrent claimants, comma separated."),
        .value("seconds", "N", default: "3", help: "Seconds per measurement."),
        .value("readers", "N", default: "1000", help: "Readers claimed at random."),
        .value("repeat", "N", default: "3", help: "Rounds over every client count; each cell reports its median round."),
        .value("pool", "N", default: "8", help: "Connections of the gateway's store client."),
        .value("pgbench", "PATH", default: "/usr/lib/postgresql/15/bin/pgbench", help: "The pgbench executable."),
        .value("output", "FILE", default: nil, help: "Also write the table (markdown) to this file."),
    ]
)

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    exit(1)
}

let options: ParsedOptions
do {
    options = try parser.parse(arguments: Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment)
} catch {
    fail(error.description)
}
guard let serverURL = options.string("url") else { fail("ownership-bench: --url is required (postgresql://user@127.0.0.1:port)") }
let clientCounts = (options.string("clients") ?? "").split(separator: ",").compactMap { Int($0) }
let seconds: Int
let readerCount: Int
let poolSize: Int
let rounds: Int
do {
    rounds = try options.int("repeat", in: 1...20) ?? 3
    seconds = try options.int("seconds", in: 1...120) ?? 3
    readerCount = try options.int("readers", in: 1...1_000_000) ?? 1000
    poolSize = try options.int("pool", in: 1...256) ?? 8
} catch {
    fail(error.description)
}
let maximumClients = clientCounts.max() ?? 1

/// The server part of a URL (scheme, user, host, port), without database or query.
func serverPart(_ url: String) -> String {
    guard let scheme = url.range(of: "://") else { return url }
    let rest = url[scheme.upperBound...]
    guard let slash = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) else { return url }
    return String(url[..<slash])
}
let benchURL = serverPart(serverURL) + "/ownership_bench"
let adminURL = serverPart(serverURL) + "/postgres"
let logger = Logger(component: "bench")

do {
    let admin = try PostgresClient(configuration: PostgresConfiguration(connectionString: adminURL), logger: logger)
    try await admin.execute("DROP DATABASE IF EXISTS ownership_bench")
    try await admin.execute("CREATE DATABASE ownership_bench")
    await admin.shutdown()

    var configuration = PostgresConfiguration(connectionString: benchURL)
    configuration.maximumConnections = poolSize
    let client = try PostgresClient(configuration: configuration, logger: logger)
    try await BenchmarkDatabase.prepare(client, readers: readerCount, sessions: maximumClients, logger: logger)
    let store = OwnershipStore(client: client)
    let gateway = GatewayClaimRunner(store: store, readers: readerCount)
    // The same store with one connection per claimant, as pgbench has.
    var wideConfiguration = PostgresConfiguration(connectionString: benchURL)
    wideConfiguration.maximumConnections = maximumClients
    let wideClient = try PostgresClient(configuration: wideConfiguration, logger: logger)
    let wide = GatewayClaimRunner(store: OwnershipStore(client: wideClient), readers: readerCount)
    // The pooled client again, with concurrent claims gathered into one statement and commit.
    let batched = GatewayClaimRunner(batcher: OwnershipClaimBatcher(store: store, maximumInFlight: poolSize), readers: readerCount)
    let work = FileManager.default.temporaryDirectory.appendingPathComponent("ownership-bench-\(getpid())")
    try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
    let pgbench = PgbenchRunner(executable: options.string("pgbench") ?? "pgbench", connectionString: benchURL, readers: readerCount, workDirectory: work)
    let script = PgbenchClaimScript.make(claimSQL: OwnershipStore.claimStatement, readers: readerCount)

    var table = BenchmarkTable(seconds: seconds, readers: readerCount, pool: poolSize, rounds: rounds)
    // Warm both sides once (connections, caches, plans) before measuring.
    _ = try await gateway.run(clients: min(8, maximumClients), seconds: 1)
    _ = try await wide.run(clients: maximumClients, seconds: 1)
    _ = try pgbench.run(clients: min(8, maximumClients), seconds: 1, script: script, mode: "extended")
    // Rounds interleave every side at every count, so a burst of load elsewhere on the machine
    // hits all of them alike; each cell reports the round with its median rate.
    var measured: [Int: [[LatencyStats]]] = [:]
    for round in 1...rounds {
        for clients in clientCounts {
            let cell = [
                try await gateway.run(clients: clients, seconds: seconds),
                try await wide.run(clients: clients, seconds: seconds),
                try await batched.run(clients: clients, seconds: seconds),
                try pgbench.run(clients: clients, seconds: seconds, script: script, mode: "extended"),
                try pgbench.run(clients: clients, seconds: seconds, script: script, mode: "prepared"),
            ]
            measured[clients, default: []].append(cell)
            print("round \(round), \(clients) claimants: " + cell.map { BenchmarkTable.format($0.claimsPerSecond) }.joined(separator: " / ") + " claims/s")
        }
    }
    for clients in clientCounts {
        let cells = measured[clients] ?? []
        func median(_ side: Int) -> LatencyStats {
            let sorted = cells.map { $0[side] }.sorted { $0.claimsPerSecond < $1.claimsPerSecond }
            return sorted[sorted.count / 2]
        }
        table.add(clients: clients, gateway: median(0), gatewayWide: median(1), gatewayBatched: median(2), pgbenchExtended: median(3), pgbenchPrepared: median(4))
    }
    await client.shutdown()
    await wideClient.shutdown()
    try? FileManager.default.removeItem(at: work)
    let rendered = table.render()
    print("")
    print(rendered)
    if let output = options.string("output") {
        try rendered.write(toFile: output, atomically: true, encoding: .utf8)
    }
} catch {
    fail("ownership-bench: \(error)")
}
