// Measures PostgresClient against pgbench on the same server, the same
// one-statement workload and the same numbers of concurrent clients, and
// prints each figure beside its peer as a ratio.
//
//   make bench-store      (or: swift run -c release StoreBenchmark --seconds 5)
import Foundation
import GatewayCore
import GatewayPostgres
import Synchronization

let parser = OptionsParser(
    program: "StoreBenchmark",
    summary: "PostgresClient beside pgbench: one bound SELECT per call at several client counts",
    environmentPrefix: "STORE_BENCHMARK",
    options: [
        .value("seconds", "SECONDS", default: "3", help: "How long each measurement runs."),
        .value("clients", "LIST", default: "1,8,32,64", help: "Comma-separated concurrent client counts."),
        .value("output", "PATH", default: "", help: "Also write the table to this file."),
    ]
)

struct Row {
    var clients: Int
    var pgbench: Double
    var client: Double
    var cpuPerStatement: Double
}

func runPgbench(_ pgbench: String, server: EmbeddedPostgres, clients: Int, seconds: Int, script: String) async throws -> Double {
    let outputPath = server.dataDirectory + "/pgbench-\(clients).txt"
    let output = open(outputPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    defer { close(output) }
    let user: ChildProcess.User? = geteuid() == 0 ? .named("postgres") : nil
    let process = try await ChildProcess.spawn(
        pgbench,
        ["-n", "-M", "extended", "-c", String(clients), "-j", String(min(clients, 2)), "-T", String(seconds), "-f", script,
         "-h", server.socketDirectory, "-U", EmbeddedPostgres.superuser, "postgres"],
        environment: ["PATH=/usr/bin:/bin"], output: output, user: user, parentDeathSignal: SIGKILL
    )
    guard await process.wait(timeout: .seconds(Int64(seconds) + 60)) == 0 else {
        throw StoreError(.queryFailed, "pgbench failed; see \(outputPath)")
    }
    let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
    guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("tps = ") }),
          let value = Double(line.dropFirst(6).prefix { $0 != " " })
    else { throw StoreError(.queryFailed, "no tps line in \(outputPath)") }
    return value
}

/// This process's user + system CPU time in microseconds.
func processCPUMicroseconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1e6 + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec)
}

/// Statements per second, and this process's CPU microseconds per statement.
func runClient(_ client: PostgresClient, clients: Int, seconds: Int) async -> (rate: Double, cpuPerStatement: Double) {
    let cpuStart = processCPUMicroseconds()
    let start = ContinuousClock.now
    let deadline = start + .seconds(seconds)
    let completed = await withTaskGroup(of: Int.self) { group in
        for worker in 0..<clients {
            group.addTask {
                var value = worker
                var done = 0
                while ContinuousClock.now < deadline {
                    value = value &* 1_103_515_245 &+ 12345
                    if (try? await client.query("SELECT $1::int", [.init(value & 0xFFFFF)])) != nil { done += 1 }
                }
                return done
            }
        }
        return await group.reduce(0, +)
    }
    let elapsed = ContinuousClock.now - start
    let secondsElapsed = elapsed.seconds
    let cpu = processCPUMicroseconds() - cpuStart
    return (Double(completed) / secondsElapsed, cpu / Double(max(completed, 1)))
}

let status = Mutex<Int32>(0)
let finished = DispatchSemaphore(value: 0)
Task.detached {
    do {
        let options = try parser.parse(arguments: Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment)
        if options.helpRequested {
            print(parser.helpText(), terminator: "")
            finished.signal()
            return
        }
        let seconds = try options.int("seconds", in: 1...600) ?? 3
        let counts = (options.string("clients") ?? "1,8,32,64").split(separator: ",").compactMap { Int($0) }
        LoggingSystem.shared.bootstrap(level: .warning, format: .logfmt)
        let logger = Logger(component: "bench")

        let directory = FileManager.default.temporaryDirectory.path + "/rgbench-\(getpid())"
        var configuration = EmbeddedPostgresConfiguration(dataDirectory: directory)
        configuration.databaseName = "postgres"
        configuration.durable = false
        configuration.maximumConnections = 200
        let server = try await EmbeddedPostgres.start(configuration, logger: logger)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let binDirectory = (try? await ChildProcessPaths.binDirectory()) ?? "/usr/lib/postgresql/15/bin"
        let script = directory + "/select.sql"
        try "\\set n random(1, 1000000)\nSELECT :n::int;\n".write(toFile: script, atomically: true, encoding: .utf8)
        _ = chmod(script, 0o644)

        let client = try PostgresClient(configuration: .init(connectionString: server.connectionString()), logger: logger)
        try await client.ping()
        var rows: [Row] = []
        for clients in counts {
            let peer = try await runPgbench(binDirectory + "/pgbench", server: server, clients: clients, seconds: seconds, script: script)
            let ours = await runClient(client, clients: clients, seconds: seconds)
            rows.append(Row(clients: clients, pgbench: peer, client: ours.rate, cpuPerStatement: ours.cpuPerStatement))
        }
        await client.shutdown()
        await server.stop()

        var table = "store: PostgresClient.query(\"SELECT $1::int\") beside pgbench -M extended (same statement), \(seconds) s each, embedded server on a Unix socket\n"
        table += "clients  pgbench/s  client/s  ratio  client CPU us/statement\n"
        for row in rows {
            table += String(format: "%7d  %9.0f  %8.0f  %5.2f  %6.1f\n", row.clients, row.pgbench, row.client, row.client / row.pgbench, row.cpuPerStatement)
        }
        print(table, terminator: "")
        if let path = options.string("output") { try table.write(toFile: path, atomically: true, encoding: .utf8) }
    } catch {
        FileHandle.standardError.write(Data("StoreBenchmark: \(error)\n".utf8))
        status.withLock { $0 = 1 }
    }
    finished.signal()
}
finished.wait()
exit(status.withLock { $0 })

/// Where pgbench lives: beside the server binaries.
enum ChildProcessPaths {
    static func binDirectory() async throws -> String {
        for candidate in ["/usr/lib/postgresql/17/bin", "/usr/lib/postgresql/16/bin", "/usr/lib/postgresql/15/bin"]
        where FileManager.default.isExecutableFile(atPath: candidate + "/pgbench") {
            return candidate
        }
        throw StoreError(.embeddedServerFailed, "pgbench not found; install postgresql-contrib or postgresql-client")
    }
}
