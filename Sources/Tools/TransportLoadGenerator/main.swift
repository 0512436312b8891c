// transport-load: a closed-loop TLS load generator on the ReaderGateway transport, used by
// `make bench` against our echo server and against the peers (nginx, openssl s_server).
//
//   transport-load --mode rtt --port 8443 --connections 256 --size 200 --duration 4s --server-pids 1234
//   transport-load --mode websocket-rtt --port 8443 --connections 256 --size 64   # the WebSocket binding: upgrade, then masked messages
//   transport-load --mode handshake --port 8443 --in-flight 64 --duration 4s
//   transport-load --mode handshake --port 8443 --client-certificate reader.pem --client-key reader-key.pem --resume   # TLS 1.3 resumption
//   transport-load --mode idle --port 8443 --connections 19000 --server-pids 1234
//
// Prints one JSON object. CPU and memory of the server come from /proc/<pid> for the pids given.
import Foundation
import GatewayCore
import GatewayTransport
import Synchronization

let parser = OptionsParser(
    program: "transport-load",
    summary: "closed-loop TLS load generator (round trips, handshakes, idle memory)",
    environmentPrefix: "TRANSPORT_LOAD",
    options: [
        .value("mode", "MODE", default: "rtt", help: "rtt, websocket-rtt (one protocol frame per masked WebSocket message), handshake or idle."),
        .value("host", "ADDRESS", default: "127.0.0.1", help: "Server address (loopback)."),
        .value("port", "PORT", default: "8443", help: "Server port."),
        .value("connections", "N", default: "16", help: "Persistent connections (rtt, idle)."),
        .value("size", "BYTES", default: "200", help: "Request size; the server echoes it (rtt)."),
        .value("duration", "DURATION", default: "4s", help: "Measured window."),
        .value("warmup", "DURATION", default: "1s", help: "Unmeasured time before the window."),
        .value("in-flight", "N", default: "64", help: "Handshakes in flight (handshake, idle)."),
        .value("loops", "N", default: "1", help: "Event loops (threads) of the load generator."),
        .value("server-pids", "PIDS", default: "", help: "Comma-separated server pids for CPU and memory."),
        .value("label", "TEXT", default: "", help: "Copied into the output."),
        .value("alpn", "PROTOCOLS", default: "", help: "Comma-separated ALPN protocols to offer (websocket-rtt offers http/1.1 unless told)."),
        .value("client-certificate", "PEM", default: nil, help: "Present this client certificate (a reader's handshake; the server verifies it)."),
        .value("client-key", "PEM", default: nil, help: "Private key of --client-certificate."),
        .flag("echo-once", help: "Handshake mode: send one byte and close once it is echoed (the server's session ticket is read on the way)."),
        .flag("resume", help: "Handshake mode: each handshake slot offers the session of its previous connection (TLS 1.3 resumption); implies --echo-once."),
    ]
)

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("transport-load: \(message)\n".utf8))
    exit(1)
}

let options: ParsedOptions
do {
    options = try parser.parse(arguments: Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment)
} catch {
    fail("\(error)")
}
if options.helpRequested {
    print(parser.helpText(), terminator: "")
    exit(0)
}
LoggingSystem.shared.bootstrap(level: .warning, format: .logfmt)
let mode = options.string("mode") ?? "rtt"
let host = options.string("host") ?? "127.0.0.1"
let port = (try? options.int("port", in: 1...65535)) ?? 8443
let connections = (try? options.int("connections", in: 1...1_000_000)) ?? 16
let size = (try? options.int("size", in: 1...1_000_000)) ?? 200
let duration = ((try? options.duration("duration")) ?? nil) ?? .seconds(4)
let warmup = ((try? options.duration("warmup")) ?? nil) ?? .seconds(1)
let inFlight = (try? options.int("in-flight", in: 1...100_000)) ?? 64
let loopCount = (try? options.int("loops", in: 1...64)) ?? 1
let pids = (options.string("server-pids") ?? "").split(separator: ",").compactMap { Int32($0) }
let label = options.string("label") ?? ""
let fileLimit = ProcessLimits.prepareForManyConnections(wantedFileDescriptors: connections + 100)

// Whatever happens, the run ends: a watchdog bounds it.
let watchdog = DispatchQueue.global()
watchdog.asyncAfter(deadline: .now() + .seconds(Int((warmup + duration).components.seconds) + 90)) { @Sendable in
    fail("the run did not finish in time; giving up")
}

var clientConfiguration = TLSClientConfiguration()
clientConfiguration.verifyServer = false
clientConfiguration.tls13Only = true
let alpn = (options.string("alpn") ?? "").split(separator: ",").map(String.init)
clientConfiguration.alpnProtocols = alpn.isEmpty && mode == "websocket-rtt" ? ["http/1.1"] : alpn
if let certificate = options.string("client-certificate") {
    clientConfiguration.certificate = CertificateKeyPair(certificateChainPath: certificate, privateKeyPath: options.string("client-key") ?? certificate)
}
let resume = (try? options.flag("resume")) ?? false
let echoOnce = resume || ((try? options.flag("echo-once")) ?? false)
let context: TLSContext
let group: EventLoopGroup
do {
    context = try TLSContext(client: clientConfiguration)
    group = try EventLoopGroup(loopCount: loopCount)
} catch {
    fail("\(error)")
}
let control = RunControl()
let statistics = group.loops.map { _ in LoopStatistics() }
let limits: ConnectionLimits = {
    var limits = ConnectionLimits()
    limits.idleTimeout = nil
    limits.handshakeTimeout = .seconds(30)
    return limits
}()

func sleep(_ duration: Duration) { Thread.sleep(forTimeInterval: duration.seconds) }

func waitFor(_ timeout: Duration, _ condition: () -> Bool) -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if condition() { return true }
        Thread.sleep(forTimeInterval: 0.005)
    }
    return condition()
}

/// Collects the loops' statistics after stopping them (the hand-over point).
func stopAndCollect() {
    control.stopping.store(true, ordering: .relaxed)
    group.syncShutdown()
}

func emit(_ fields: [(String, Any)]) {
    var parts = ["\"label\":\"\(label)\"", "\"mode\":\"\(mode)\""]
    for (key, value) in fields {
        if let text = value as? String { parts.append("\"\(key)\":\"\(text.replacingOccurrences(of: "\"", with: "'"))\"") }
        else if let number = value as? Double { parts.append("\"\(key)\":\(String(format: "%.6g", number))") }
        else { parts.append("\"\(key)\":\(value)") }
    }
    print("{" + parts.joined(separator: ",") + "}")
}

switch mode {
case "rtt", "websocket-rtt":
    // Open in batches so that no peer's listen backlog overflows, then measure.
    var launched = 0
    while launched < connections {
        let batch = min(128, connections - launched)
        for index in launched..<(launched + batch) {
            let loop = group.loops[index % group.loops.count]
            let loopStatistics = statistics[loop.index]
            TLSClient.connect(host: host, port: port, context: context, limits: limits, on: loop) { _ -> any ConnectionHandler in
                if mode == "websocket-rtt" { return WebSocketRoundTripHandler(statistics: loopStatistics, control: control, size: size, host: "\(host):\(port)") }
                return RoundTripHandler(statistics: loopStatistics, control: control, size: size)
            }
        }
        launched += batch
        guard waitFor(.seconds(30), { control.opened.load(ordering: .relaxed) + control.failed.load(ordering: .relaxed) >= launched }) else {
            fail("connections did not open (\(control.opened.load(ordering: .relaxed)) of \(launched))")
        }
    }
    if control.failed.load(ordering: .relaxed) > 0 { fail("\(control.failed.load(ordering: .relaxed)) connections failed to open: \(statistics.compactMap(\.lastFailure).first ?? "")") }
    sleep(warmup)
    let cpuBefore = ProcessProbe.cpuSeconds(pids)
    let ownBefore = ProcessProbe.ownCPUSeconds()
    let started = ContinuousClock.now
    control.recording.store(true, ordering: .relaxed)
    sleep(duration)
    control.recording.store(false, ordering: .relaxed)
    let elapsed = ContinuousClock.now - started
    let cpuAfter = ProcessProbe.cpuSeconds(pids)
    let ownAfter = ProcessProbe.ownCPUSeconds()
    stopAndCollect()
    let seconds = elapsed.seconds
    let total = statistics.reduce(0) { $0 + $1.roundTrips }
    let latencies = statistics.flatMap(\.latencies).sorted()
    emit([
        ("connections", connections), ("size", size), ("seconds", seconds),
        ("round_trips", total), ("round_trips_per_s", Double(total) / seconds),
        ("p50_ms", percentile(latencies, 0.50) / 1_000), ("p99_ms", percentile(latencies, 0.99) / 1_000),
        ("server_cpu_s", cpuAfter - cpuBefore),
        ("server_cpu_us_per_rt", total > 0 ? (cpuAfter - cpuBefore) / Double(total) * 1e6 : 0),
        ("load_cpu_s", ownAfter - ownBefore),
        ("failures", statistics.reduce(0) { $0 + $1.failures }),
    ])

case "handshake":
    @Sendable func start(on loop: EventLoop, sessions: TLSSessionCache?) {
        let loopStatistics = statistics[loop.index]
        TLSClient.connect(host: host, port: port, context: context, limits: limits, sessions: sessions, on: loop) { _ in
            HandshakeHandler(statistics: loopStatistics, control: control, echoOnce: echoOnce, reconnect: { start(on: loop, sessions: sessions) })
        }
    }
    for index in 0..<inFlight { start(on: group.loops[index % group.loops.count], sessions: resume ? TLSSessionCache() : nil) }
    sleep(warmup)
    let cpuBefore = ProcessProbe.cpuSeconds(pids)
    let started = ContinuousClock.now
    control.recording.store(true, ordering: .relaxed)
    sleep(duration)
    control.recording.store(false, ordering: .relaxed)
    let elapsed = ContinuousClock.now - started
    let cpuAfter = ProcessProbe.cpuSeconds(pids)
    stopAndCollect()
    let seconds = elapsed.seconds
    let total = statistics.reduce(0) { $0 + $1.handshakes }
    emit([
        ("in_flight", inFlight), ("seconds", seconds), ("handshakes", total),
        ("resumed", statistics.reduce(0) { $0 + $1.resumed }),
        ("handshakes_per_s", Double(total) / seconds),
        ("server_cpu_ms_per_handshake", total > 0 ? (cpuAfter - cpuBefore) / Double(total) * 1e3 : 0),
        ("failures", statistics.reduce(0) { $0 + $1.failures }),
        ("last_failure", statistics.compactMap(\.lastFailure).first ?? ""),
    ])

case "idle":
    let launched = Atomic<Int>(0)
    @Sendable func openNext() {
        let index = launched.wrappingAdd(1, ordering: .relaxed).oldValue
        guard index < connections else { return }
        let loop = group.loops[index % group.loops.count]
        TLSClient.connect(host: host, port: port, context: context, limits: limits, on: loop) { _ in
            IdleHandler(control: control, next: openNext)
        }
    }
    sleep(.milliseconds(200))
    let baseline = ProcessProbe.residentKiB(pids)
    for _ in 0..<min(inFlight, connections) { openNext() }
    let opened = waitFor(.seconds(60)) { control.opened.load(ordering: .relaxed) >= connections || control.failed.load(ordering: .relaxed) > connections / 10 }
    sleep(.seconds(2))
    let held = control.opened.load(ordering: .relaxed) - control.failed.load(ordering: .relaxed)
    let resident = ProcessProbe.residentKiB(pids)
    emit([
        ("connections", connections), ("held", held), ("all_opened", opened ? "yes" : "no"),
        ("server_rss_baseline_kib", baseline), ("server_rss_kib", resident),
        ("server_kib_per_connection", held > 0 ? Double(resident - baseline) / Double(held) : 0),
        ("failures", control.failed.load(ordering: .relaxed)), ("nofile", fileLimit),
    ])
    stopAndCollect()

default:
    fail("unknown --mode \(mode); use rtt, websocket-rtt, handshake or idle")
}
exit(0)
