// fleet-load: a fleet of simulated readers and lanes for `make bench-fleet`.
//
//   fleet-load --mode ca --dir DIR                      CA, server certificate, the readers' key
//   fleet-load --mode register --dir DIR --port P --secret-key KEY --first 1 --count 1000
//       locations of 10 readers, registered by serial, a client certificate per reader
//   fleet-load --mode readers --dir DIR --port P --first 1 --count 4000 [--echo [--echo-certificates]]
//       attach, heartbeat every --heartbeat-interval, answer commands, reconnect; a status
//       line a second until SIGTERM (--echo: the same traffic to a TLS echo, the floor)
//   fleet-load --mode lanes --dir DIR --port P --count 100 --period 20s --duration 20s
//       sessions connecting a reader of their location and relaying a command every period;
//       one JSON line with p50/p99 of both, at the end or at SIGTERM (--duration 0: status
//       lines until SIGTERM)
//   fleet-load --mode watch --dir DIR --port P --secret-key KEY
//       one FleetAdmin.WatchFleet call (as the fleet console holds one): its snapshot and the
//       events since, a status line a second until SIGTERM
//
// Readers are transport handlers on event loops with loop timers (no task per reader); lanes
// are TerminalClients. The bench script measures this process's CPU beside the gateway's.
import Foundation
import GatewayClient
import GatewayCore
import GatewayTransport
import GatewayWire
import GatewayWireClients
import Synchronization

let parser = OptionsParser(
    program: "fleet-load",
    summary: "simulated readers and lanes at fleet scale (make bench-fleet)",
    environmentPrefix: "FLEET_LOAD",
    options: [
        .value("mode", "MODE", default: "readers", help: "ca, register, readers, lanes or watch."),
        .value("dir", "DIR", default: "fleet", help: "Certificates, locations and token (shared by every mode)."),
        .value("host", "ADDRESS", default: "127.0.0.1", help: "Gateway (or echo) address."),
        .value("port", "PORT", default: "7443", help: "Gateway (or echo) TLS port."),
        .value("secret-key", "KEY", default: "", help: "Admin secret key (register, watch)."),
        .value("first", "N", default: "1", help: "First reader number (serial FLEET<n>)."),
        .value("count", "N", default: "1000", help: "Readers (register, readers) or lanes (lanes)."),
        .value("per-location", "N", default: "10", help: "Readers per location (one lane each)."),
        .value("heartbeat-interval", "DURATION", default: "2s", help: "Reader heartbeat interval (reader-sim's default)."),
        .value("reconnect-delay", "DURATION", default: "500ms", help: "A reader's first retry window after a lost link (doubles per failed attempt)."),
        .value("reconnect-delay-max", "DURATION", default: "8s", help: "The largest retry window (reader-sim's default: 16 x --reconnect-delay)."),
        .flag("hold", help: "Lanes: keep one reader each (connect once, then relay) instead of connecting now and then."),
        .flag("echo", help: "Readers talk to a TLS echo (the floor): same frames, replies ignored."),
        .flag("echo-certificates", help: "With --echo: each reader presents its client certificate, as to the gateway (an echo started with --client-ca)."),
        .flag("no-resume", help: "Readers do not offer their last TLS session when they dial again (every handshake a full one)."),
        .value("loops", "N", default: "1", help: "Event loops of this process."),
        .value("handshake-window", "N", default: "16", help: "TLS handshakes in flight at once."),
        .value("period", "DURATION", default: "20s", help: "Mean time between a lane's connect + command."),
        .value("warmup", "DURATION", default: "5s", help: "Lanes: time before measuring."),
        .value("duration", "DURATION", default: "20s", help: "Lanes: measured time (0: until SIGTERM)."),
    ]
)

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("fleet-load: \(message)\n".utf8))
    exit(1)
}

func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
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
let mode = options.string("mode") ?? "readers"
let directory = options.string("dir") ?? "fleet"
let host = options.string("host") ?? "127.0.0.1"
let port = (try? options.int("port", in: 1...65535)) ?? 7443
let first = (try? options.int("first", in: 1...9_999_999)) ?? 1
let count = (try? options.int("count", in: 1...100_000)) ?? 1000
let perLocation = (try? options.int("per-location", in: 1...1000)) ?? 10
let heartbeatInterval = (try? options.duration("heartbeat-interval")) ?? .seconds(2)
let reconnectDelay = (try? options.duration("reconnect-delay")) ?? .milliseconds(500)
let reconnectDelayMax = (try? options.duration("reconnect-delay-max")) ?? .seconds(8)
let loopCount = (try? options.int("loops", in: 1...16)) ?? 1
let window = (try? options.int("handshake-window", in: 1...1024)) ?? 16
let period = (try? options.duration("period")) ?? .seconds(20)
let warmup = (try? options.duration("warmup")) ?? .seconds(5)
let duration = (try? options.duration("duration")) ?? .seconds(20)
let echo = (try? options.flag("echo")) ?? false
let echoCertificates = (try? options.flag("echo-certificates")) ?? false

/// Writes a PEM file with `permissions`.
func save(_ text: String, to path: String, permissions: Int) throws {
    try text.write(toFile: path, atomically: true, encoding: .utf8)
    try FileManager.default.setAttributes([.posixPermissions: permissions], ofItemAtPath: path)
}

func serial(_ number: Int) -> String { String(format: "FLEET%07d", number) }
let tlsDirectory = directory + "/tls"
let readerDirectory = directory + "/readers"
let readerKeyPath = directory + "/reader-key.pem"
let locationsPath = directory + "/locations.txt"
let tokenPath = directory + "/token.txt"

func clientConfiguration() -> ClientChannelConfiguration {
    ClientChannelConfiguration(host: host, port: port, serverName: "localhost", trustedCAPath: tlsDirectory + "/ca.pem", keepalive: nil)
}

/// Runs `body` on a task and waits for it on this thread (the loops need none of it).
func runAsync(_ body: @escaping @Sendable () async throws -> Void) {
    let done = DispatchSemaphore(value: 0)
    let status = Mutex<Int32>(0)
    Task.detached {
        do { try await body() } catch {
            FileHandle.standardError.write(Data("fleet-load: \(error)\n".utf8))
            status.withLock { $0 = 1 }
        }
        done.signal()
    }
    done.wait()
    _exit(status.withLock { $0 })
}

switch mode {
case "ca":
    do {
        let development = try DevelopmentCertificates.ensure(in: tlsDirectory, hostNames: ["localhost"])
        try FileManager.default.createDirectory(atPath: readerDirectory, withIntermediateDirectories: true)
        if !FileManager.default.fileExists(atPath: readerKeyPath) {
            try save(try PrivateKey.ecdsaP256().pem(), to: readerKeyPath, permissions: 0o600)
        }
        say("{\"ca\":\"\(development.caCertificatePath)\",\"certificate\":\"\(development.server.certificateChainPath)\",\"key\":\"\(development.server.privateKeyPath)\"}")
    } catch {
        fail("\(error)")
    }

case "register":
    guard (first - 1) % perLocation == 0, count % perLocation == 0 else { fail("--first - 1 and --count must be multiples of --per-location") }
    let secretKey = options.string("secret-key") ?? ""
    runAsync {
        let development = try DevelopmentCertificates.ensure(in: tlsDirectory, hostNames: ["localhost"])
        let authority = try CertificateAuthority(certificatePath: development.caCertificatePath, keyPath: development.caKeyPath)
        let key = try PrivateKey(pemFile: readerKeyPath)
        let group = try EventLoopGroup(loopCount: 1, threadNamePrefix: "fleet-admin")
        let admin = AdminClient(connection: GatewayConnection(clientConfiguration(), group: group), secretKey: secretKey)
        if !FileManager.default.fileExists(atPath: tokenPath) {
            let token = try await admin.createConnectionToken(locationID: "", ttl: .seconds(86_400)).secret
            try token.write(toFile: tokenPath, atomically: true, encoding: .utf8)
        }
        var locations: [String] = []
        for start in stride(from: first, to: first + count, by: perLocation) {
            let location = try await admin.createLocation(displayName: "Fleet store \((start - 1) / perLocation + 1)").id
            let serials = (start..<(start + perLocation)).map(serial)
            _ = try await admin.registerReaders(serials: serials, labelPrefix: "Fleet", locationID: location, deviceType: .simulatedWiseposE)
            for name in serials {
                let (certificate, _) = try authority.issue(CertificateRequest(commonName: name, subjectSerialNumber: name, usage: .client), key: key)
                try save(certificate.pem(), to: "\(readerDirectory)/\(name).pem", permissions: 0o644)
            }
            locations.append(location)
        }
        let handle = FileHandle(forUpdatingAtPath: locationsPath) ?? {
            _ = FileManager.default.createFile(atPath: locationsPath, contents: nil)
            return FileHandle(forUpdatingAtPath: locationsPath)!
        }()
        handle.seekToEndOfFile()
        handle.write(Data(locations.map { $0 + "\n" }.joined().utf8))
        try handle.close()
        say("{\"registered\":\(count),\"locations\":\(locations.count)}")
    }

case "readers":
    _ = ProcessLimits.prepareForManyConnections(wantedFileDescriptors: count + 200)
    let group: EventLoopGroup
    do { group = try EventLoopGroup(loopCount: loopCount, threadNamePrefix: "fleet-loop") } catch { fail("\(error)") }
    let fleet = Fleet(
        host: host, port: port, heartbeatInterval: heartbeatInterval, reconnectDelay: reconnectDelay, reconnectDelayMax: reconnectDelayMax, echo: echo,
        group: group, handshakeWindow: window, resumeSessions: !((try? options.flag("no-resume")) ?? false)
    )
    let shared: TLSContext?
    do { shared = echo && !echoCertificates ? try TLSContext(client: TLSClientConfiguration(trustedCAPath: tlsDirectory + "/ca.pem")) : nil } catch { fail("\(error)") }
    for number in first..<(first + count) {
        let name = serial(number)
        let context: TLSContext
        do {
            context = try shared ?? TLSContext(client: TLSClientConfiguration(
                trustedCAPath: tlsDirectory + "/ca.pem",
                certificate: CertificateKeyPair(certificateChainPath: "\(readerDirectory)/\(name).pem", privateKeyPath: readerKeyPath)
            ))
        } catch { fail("\(error)") }
        fleet.launcher.connect(FleetReader(serial: name, context: context, fleet: fleet))
    }
    signal(SIGTERM) { _ in _exit(0) }
    signal(SIGINT) { _ in _exit(0) }
    while true {
        Thread.sleep(forTimeInterval: 1)
        say("{\"attached\":\(fleet.attached.load(ordering: .relaxed)),\"heartbeats\":\(fleet.heartbeats.load(ordering: .relaxed)),\"commands\":\(fleet.commands.load(ordering: .relaxed)),\"closes\":\(fleet.closes.load(ordering: .relaxed)),\"resumed\":\(fleet.resumed.load(ordering: .relaxed))}")
    }

case "lanes":
    _ = ProcessLimits.prepareForManyConnections(wantedFileDescriptors: count + 200)
    runAsync {
        let locations = try String(contentsOfFile: locationsPath, encoding: .utf8).split(separator: "\n").map(String.init)
        guard locations.count >= count else { fail("\(count) lanes need \(count) locations; \(locations.count) are registered") }
        let token = try String(contentsOfFile: tokenPath, encoding: .utf8)
        let group = try EventLoopGroup(loopCount: loopCount, threadNamePrefix: "fleet-lanes")
        let lanes = FleetLanes(period: period, hold: (try? options.flag("hold")) ?? false)
        let configuration = clientConfiguration()
        for index in 0..<count {
            Task { await lanes.run(index: index, locationID: locations[index], token: token, configuration: configuration, group: group) }
            if index % 8 == 7 { try await Task.sleep(for: .milliseconds(25)) }
        }
        let deadline = ContinuousClock.now + .seconds(120)
        while lanes.ready.load(ordering: .relaxed) < count, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(100))
        }
        say("{\"lanes_ready\":\(lanes.ready.load(ordering: .relaxed))}")
        if duration == .zero {
            lanes.measuring.store(true, ordering: .relaxed)
            while true {
                try await Task.sleep(for: .seconds(1))
                let (failures, lastFailure) = lanes.samples.withLock { ($0.failures, $0.lastFailure) }
                say("{\"lanes_ready\":\(lanes.ready.load(ordering: .relaxed)),\"resumed\":\(lanes.resumed.load(ordering: .relaxed)),\"lost\":\(lanes.lost.load(ordering: .relaxed)),\"failures\":\(failures),\"failures_by_reason\":\(lanes.failuresByReasonJSON()),\"last_failure\":\(JSONText.quoted(lastFailure))}")
            }
        }
        try await Task.sleep(for: warmup)
        // SIGTERM ends the measured time early (the result line still comes).
        signal(SIGTERM, SIG_IGN)
        let termination = DispatchSource.makeSignalSource(signal: SIGTERM, queue: .global())
        termination.setEventHandler { lanes.finishRequested.store(true, ordering: .relaxed) }
        termination.resume()
        say("{\"measuring\":true}")
        lanes.measuring.store(true, ordering: .relaxed)
        let end = ContinuousClock.now + duration
        while ContinuousClock.now < end, !lanes.finishRequested.load(ordering: .relaxed) {
            try await Task.sleep(for: .milliseconds(100))
        }
        termination.cancel()
        lanes.measuring.store(false, ordering: .relaxed)
        let samples = lanes.samples.withLock { $0 }
        func ms(_ value: Double) -> String { String(format: "%.2f", value * 1000) }
        say("{\"lanes\":\(lanes.ready.load(ordering: .relaxed)),\"connects\":\(samples.connects.count),\"relays\":\(samples.relays.count),"
            + "\"connect_p50_ms\":\(ms(quantile(samples.connects, 0.5))),\"connect_p99_ms\":\(ms(quantile(samples.connects, 0.99))),"
            + "\"relay_p50_ms\":\(ms(quantile(samples.relays, 0.5))),\"relay_p99_ms\":\(ms(quantile(samples.relays, 0.99))),"
            + "\"failures\":\(samples.failures),\"failures_by_reason\":\(lanes.failuresByReasonJSON()),\"last_failure\":\(JSONText.quoted(samples.lastFailure))}")
        lanes.stopping.store(true, ordering: .relaxed)
    }

case "watch":
    let secretKey = options.string("secret-key") ?? ""
    runAsync {
        let group = try EventLoopGroup(loopCount: 1, threadNamePrefix: "fleet-watch")
        let admin = AdminClient(connection: GatewayConnection(clientConfiguration(), group: group), secretKey: secretKey)
        let counts = Mutex<(snapshot: Int, changes: Int)>((0, 0))
        let watching = Task {
            for try await event in try await admin.watchFleet() {
                counts.withLock { counts in
                    switch event.event {
                    case .snapshot(let page)?: counts.snapshot += page.readers.count
                    case nil: break
                    default: counts.changes += 1
                    }
                }
            }
        }
        signal(SIGTERM) { _ in _exit(0) }
        signal(SIGINT) { _ in _exit(0) }
        while true {
            try await Task.sleep(for: .seconds(1))
            let (snapshot, changes) = counts.withLock { $0 }
            say("{\"watching\":true,\"snapshot_readers\":\(snapshot),\"changes\":\(changes)}")
            if watching.isCancelled { break }
        }
        _ = try await watching.value
    }

default:
    fail("--mode must be ca, register, readers, lanes or watch")
}
