// flood-bench: what a slowloris flood does to a TLS server's new and existing clients.
//
// Against one server (the gateway, or the TLS echo behind nginx) it opens --sessions clients
// that each make a call every 10 ms and measures their latency while --attempts new clients
// come one after another (a new TLS connection and its first call) for --seconds; then starts
// `transport-flood` (silent and half-hello sockets from --sources loopback addresses) and, while
// it runs, measures the same clients again and --attempts new clients, one after another: a new
// TLS connection and its first call. It samples the server's CPU and resident memory (from
// /proc/PID) before, during and --after-seconds after the flood, and prints one JSON line.
//
//   flood-bench --target gateway --port 7443 --ca ca.pem --token pst_... --server-pid N --flood bin/transport-flood
//   flood-bench --target echo    --port 8443 --ca ca.pem --server-pid N[,N...] --flood bin/transport-flood
//
// A call: for the gateway, OpenSession (new clients, with --token) and Heartbeat on the open
// session (existing clients); for the echo, 64 bytes echoed.
import Foundation
import GatewayClient
import GatewayCore
import GatewayTransport
import GatewayWire
import Synchronization

let parser = OptionsParser(
    program: "flood-bench",
    summary: "new and existing clients of a TLS server during a slowloris flood",
    environmentPrefix: "FLOOD_BENCH",
    options: [
        .value("target", "KIND", default: "gateway", help: "gateway (reader-gateway) or echo (a TLS echo, e.g. behind nginx)."),
        .value("port", "PORT", default: "7443", help: "The server's TLS port on 127.0.0.1."),
        .value("ca", "PATH", default: "", help: "CA certificate (PEM) the server's certificate chains to."),
        .value("token", "TOKEN", default: "", help: "A connection token (gateway target)."),
        .value("server-pid", "PIDS", default: "", help: "Server process ids, comma-separated (CPU and memory)."),
        .value("flood", "PATH", default: "transport-flood", help: "The transport-flood executable."),
        .value("sessions", "N", default: "16", help: "Existing clients, each calling every 10 ms."),
        .value("attempts", "N", default: "50", help: "New clients during the flood, one after another."),
        .value("seconds", "N", default: "5", help: "Seconds of existing-client calls measured before the flood and during it."),
        .value("after-seconds", "N", default: "30", help: "Seconds after the flood before memory is read again."),
        .value("silent", "N", default: "7000", help: "Silent flood sockets."),
        .value("partial", "N", default: "3000", help: "Half-hello flood sockets."),
        .value("sources", "N", default: "10", help: "Flood source addresses (127.0.0.2 on)."),
        .value("label", "TEXT", default: "flood", help: "Label in the JSON line."),
    ]
)

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("flood-bench: \(message)\n".utf8))
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
LoggingSystem.shared.bootstrap(level: .error, format: .logfmt)
guard let target = options.string("target"), target == "gateway" || target == "echo" else { fail("--target is gateway or echo") }
let port = (try? options.int("port", in: 1...65535)) ?? 7443
guard let caPath = options.string("ca"), !caPath.isEmpty else { fail("--ca is required") }
let token = options.string("token") ?? ""
if target == "gateway" && token.isEmpty { fail("--token is required for the gateway") }
let serverPIDs = (options.string("server-pid") ?? "").split(separator: ",").compactMap { Int32($0) }
let floodPath = options.string("flood") ?? "transport-flood"
let sessionCount = (try? options.int("sessions", in: 1...1000)) ?? 16
let attempts = (try? options.int("attempts", in: 1...10_000)) ?? 50
let measureSeconds = (try? options.int("seconds", in: 1...600)) ?? 5
let afterSeconds = (try? options.int("after-seconds", in: 0...600)) ?? 30
let silent = (try? options.int("silent", in: 0...19_000)) ?? 7000
let partial = (try? options.int("partial", in: 0...19_000)) ?? 3000
let sources = (try? options.int("sources", in: 1...200)) ?? 10
let label = options.string("label") ?? "flood"

let group = try EventLoopGroup(loopCount: 1)
let context = try TLSContext(client: TLSClientConfiguration(trustedCAPath: caPath))
let channelConfiguration = ClientChannelConfiguration(host: "127.0.0.1", port: port, serverName: "localhost", trustedCAPath: caPath)

/// One client of either kind, making calls.
protocol Client: Sendable {
    func call() async throws
    func close()
}

/// A lane with an open session: Heartbeat is its call.
struct GatewayClient: Client {
    let connection: GatewayConnection
    let session: ReaderGatewayV1.OpenSessionResponse

    /// A new TLS connection and its first call, OpenSession.
    static func open(_ index: Int) async throws -> GatewayClient {
        let connection = GatewayConnection(channelConfiguration, group: group)
        var request = ReaderGatewayV1.OpenSessionRequest()
        request.connectionToken = token
        request.laneLabel = "flood-bench \(index)"
        request.posDeviceID = "flood-bench-\(index)"
        let session = try await connection.unary(ReaderGatewayV1.Sdk.openSession, request, timeout: .seconds(30), attempts: 1)
        return GatewayClient(connection: connection, session: session)
    }

    func call() async throws {
        var request = ReaderGatewayV1.HeartbeatRequest()
        request.sessionToken = session.sessionToken
        _ = try await connection.unary(ReaderGatewayV1.Sdk.heartbeat, request, timeout: .seconds(30), attempts: 1)
    }

    func close() {
        connection.close()
    }
}

/// A TLS echo client: 64 bytes there and back is its call.
final class EchoClient: Client, @unchecked Sendable {
    let connection: AsyncTLSConnection
    /// Used by one task at a time (each call is awaited before the next).
    private var iterator: AsyncThrowingStream<[UInt8], any Error>.Iterator
    private var carry: [UInt8] = []
    static let message = [UInt8](repeating: 0x61, count: 64)

    init(connection: AsyncTLSConnection) {
        self.connection = connection
        self.iterator = connection.inbound.makeAsyncIterator()
    }

    /// A new TLS connection and its first call.
    static func open(_ index: Int) async throws -> EchoClient {
        let connection = try await AsyncTLSConnection.connect(host: "127.0.0.1", port: port, serverName: "localhost", context: context, on: group.next())
        let client = EchoClient(connection: connection)
        try await client.call()
        return client
    }

    func call() async throws {
        connection.write(Self.message)
        guard try await AsyncTLSConnection.read(exactly: Self.message.count, from: &iterator, carry: &carry) != nil else {
            throw TransportError(.connectFailed, "the echo closed")
        }
    }

    func close() { connection.close(graceful: false) }
}

func openClient(_ index: Int) async throws -> any Client {
    target == "gateway" ? try await GatewayClient.open(index) : try await EchoClient.open(index)
}

/// CPU seconds (user + system) and resident kilobytes of the server processes.
func serverUsage() -> (cpu: Double, rssKB: Int) {
    var cpu = 0.0
    var rss = 0
    let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
    for pid in serverPIDs {
        if let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
           let close = stat.lastIndex(of: ")") {
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            // After the command: state is field 3, utime 14 and stime 15 (1-based over the whole line).
            if fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) { cpu += (user + system) / ticks }
        }
        if let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
           let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
           let kilobytes = line.split(separator: " ").dropFirst().first.flatMap({ Int($0) }) {
            rss += kilobytes
        }
    }
    return (cpu, rss)
}

func percentile(_ values: [Double], _ p: Double) -> Double {
    guard !values.isEmpty else { return 0 }
    let sorted = values.sorted()
    return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))]
}

/// Latencies in milliseconds of the existing clients' calls, bucketed by phase.
final class Recorder: Sendable {
    let latencies = Mutex<[String: [Double]]>([:])
    let failures = Atomic<Int>(0)
    let phase = Mutex<String>("warmup")
    let stop = Atomic<Bool>(false)

    func record(_ milliseconds: Double) {
        let current = phase.withLock { $0 }
        latencies.withLock { $0[current, default: []].append(milliseconds) }
    }
}

func milliseconds(since start: ContinuousClock.Instant) -> Double {
    let (seconds, attoseconds) = (ContinuousClock.now - start).components
    return Double(seconds) * 1000 + Double(attoseconds) / 1e15
}

/// transport-flood as a child process, its output collected line by line.
final class Flood: @unchecked Sendable {
    /// `Process` is not Sendable; it is only used by the main task (run, terminate, wait).
    let process = Process()
    let output = Lines()

    /// Whole lines read so far, and the start of the next one.
    final class Lines: Sendable {
        let lines = Mutex<(whole: [String], partial: String)>(([], ""))

        func append(_ text: String) {
            lines.withLock { state in
                let pieces = (state.partial + text).split(separator: "\n", omittingEmptySubsequences: false)
                state.whole += pieces.dropLast().map(String.init)
                state.partial = String(pieces.last ?? "")
            }
        }
    }

    init() throws {
        // At the lowest priority: on one machine the attacker's own CPU would otherwise be taken
        // from the server and its clients, which a real attacker spends on machines of its own.
        process.executableURL = URL(fileURLWithPath: "/usr/bin/nice")
        process.arguments = ["-n", "19", floodPath, "--port", String(port), "--silent", String(silent), "--partial", String(partial),
                             "--sources", String(sources), "--first-source", "127.0.0.2", "--reopen-per-second", "5000", "--seconds", "600"]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.standardError
        let output = self.output
        try process.run()
        // A blocking read loop on a thread of its own, not `readabilityHandler`: tearing down the
        // read source that installs can crash libdispatch on Linux (a freed epoll note).
        let reading = pipe.fileHandleForReading
        let reader = Thread {
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = read(reading.fileDescriptor, &buffer, buffer.count)
                if count < 0, errno == EINTR { continue }
                if count <= 0 { break }
                output.append(String(decoding: buffer[0..<count], as: UTF8.self))
            }
        }
        reader.name = "flood-output"
        reader.start()
    }

    func line(startingWith prefix: String) -> String? { output.lines.withLock { $0.whole.last { $0.hasPrefix(prefix) } } }

    func field(_ key: String, in line: String?) -> Int {
        guard let line else { return 0 }
        for part in line.split(separator: " ") where part.hasPrefix(key + "=") { return Int(part.dropFirst(key.count + 1)) ?? 0 }
        return 0
    }
}

let recorder = Recorder()
var clients: [any Client] = []
for index in 0..<sessionCount {
    do { clients.append(try await openClient(index)) } catch { fail("could not open existing client \(index): \(error)") }
}
let callers = clients.map { client in
    Task {
        while !recorder.stop.load(ordering: .relaxed) {
            let start = ContinuousClock.now
            do {
                try await client.call()
                recorder.record(milliseconds(since: start))
            } catch {
                recorder.failures.add(1, ordering: .relaxed)
            }
            try? await Task.sleep(for: .milliseconds(10))
        }
    }
}
/// `attempts` new clients, one after another, spread over the measured seconds: each one's time
/// from connect to the answer of its first call, in milliseconds, and the failures.
func newClients(first index: Int) async -> (times: [Double], failures: Int) {
    var times: [Double] = []
    var failures = 0
    let spacing = Duration.milliseconds(Int64(max(20, measureSeconds * 1000 / attempts)))
    for offset in 0..<attempts {
        let start = ContinuousClock.now
        do {
            let client = try await openClient(index + offset)
            times.append(milliseconds(since: start))
            client.close()
        } catch {
            failures += 1
        }
        try? await Task.sleep(for: spacing)
    }
    return (times, failures)
}

try await Task.sleep(for: .seconds(1))
recorder.phase.withLock { $0 = "before" }
let before = serverUsage()
let newClientBefore = await newClients(first: 1_000)

// The flood.
let flood = try Flood()
let floodStarted = ContinuousClock.now
while flood.line(startingWith: "ready") == nil, ContinuousClock.now - floodStarted < .seconds(60), flood.process.isRunning {
    try await Task.sleep(for: .milliseconds(50))
}
let floodReady = flood.line(startingWith: "ready") != nil
recorder.phase.withLock { $0 = "during" }
let duringStart = (usage: serverUsage(), at: ContinuousClock.now)
let (newClient, newClientFailures) = await newClients(first: 10_000)
let duringEnd = (usage: serverUsage(), at: ContinuousClock.now)
let floodStats = flood.line(startingWith: "stats")
flood.process.terminate()
flood.process.waitUntilExit()
recorder.phase.withLock { $0 = "after" }
try await Task.sleep(for: .seconds(afterSeconds))
let after = serverUsage()
recorder.stop.store(true, ordering: .relaxed)
for caller in callers { await caller.value }
for client in clients { client.close() }

let latencies = recorder.latencies.withLock { $0 }
let duringSeconds = Double((duringEnd.at - duringStart.at).components.seconds) + Double((duringEnd.at - duringStart.at).components.attoseconds) / 1e18
let result: [String: Any] = [
    "label": label, "target": target, "flood_sockets": silent + partial, "flood_sources": sources, "flood_ready": floodReady,
    "flood_open_during": flood.field("open", in: floodStats), "flood_closed_by_server": flood.field("closed_by_server", in: flood.line(startingWith: "done") ?? floodStats),
    "new_client_attempts": attempts, "new_client_failures": newClientFailures,
    "new_client_before_p50_ms": percentile(newClientBefore.times, 0.5), "new_client_before_p99_ms": percentile(newClientBefore.times, 0.99),
    "new_client_before_failures": newClientBefore.failures,
    "new_client_p50_ms": percentile(newClient, 0.5), "new_client_p99_ms": percentile(newClient, 0.99), "new_client_max_ms": newClient.max() ?? 0,
    "existing_calls_before": latencies["before"]?.count ?? 0, "existing_calls_during": latencies["during"]?.count ?? 0,
    "existing_p99_before_ms": percentile(latencies["before"] ?? [], 0.99), "existing_p99_during_ms": percentile(latencies["during"] ?? [], 0.99),
    "existing_failures": recorder.failures.load(ordering: .relaxed),
    "server_cpu_percent_during": duringSeconds > 0 ? (duringEnd.usage.cpu - duringStart.usage.cpu) / duringSeconds * 100 : 0,
    "server_rss_before_kb": before.rssKB, "server_rss_during_kb": duringEnd.usage.rssKB, "server_rss_after_kb": after.rssKB,
    "after_seconds": afterSeconds,
]
let json = try JSONSerialization.data(withJSONObject: result, options: [.sortedKeys])
print(String(decoding: json, as: UTF8.self))
await group.shutdown()
