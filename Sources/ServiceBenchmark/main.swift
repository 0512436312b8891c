// service-bench: relayed command round trips through the whole gateway.
//
// Starts a throwaway PostgreSQL and the gateway service in this process, attaches N readers
// (mutual TLS, answering every command at once) and N lanes (TerminalClient), connects lane i
// to reader i, then each lane sends SetReaderDisplay in a closed loop:
// lane → gateway → reader → gateway → lane, both legs TLS. Prints one JSON line.
//
//   service-bench --pairs 16 --duration 5s --warmup 1s
import Foundation
import GatewayClient
import GatewayCore
import GatewayOperations
import GatewayService
import GatewayTestSupport
import GatewayTransport
import GatewayWire
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
    ]
)

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("service-bench: \(message)\n".utf8))
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

let pairs = (try? options.int("pairs", in: 1...4096)) ?? 16
let duration = (try? options.duration("duration")) ?? .seconds(5)
let warmup = (try? options.duration("warmup")) ?? .seconds(1)
let loopCount = (try? options.int("loops", in: 1...64)) ?? 2
let label = options.string("label") ?? "gateway relay"

func run() async throws {
    let database = try await TestPostgres.database(maximumConnections: 8)
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
    service.discoveryBurst = pairs + 10
    // The lean readers do not heartbeat; the run is far shorter than this.
    service.readerOfflineBound = .seconds(600)
    let host = GatewayServiceHost(
        listener: GatewayListenerConfiguration(host: "127.0.0.1", port: 0, certificate: server, readerCAPath: caPath, loopCount: loopCount),
        service: service, client: database.client, metrics: GatewayMetrics(callMethods: GatewayServiceHost.methodNames, includeProcessMetrics: false)
    )
    let port = try host.start().port
    let account = try await DevelopmentAccount.create(name: "bench", client: database.client)
    let clients = try EventLoopGroup(loopCount: 2)
    func configuration(certificate: CertificateKeyPair? = nil) -> ClientChannelConfiguration {
        ClientChannelConfiguration(
            host: "127.0.0.1", port: port, serverName: "localhost", trustedCAPath: caPath, clientCertificate: certificate, keepalive: nil
        )
    }
    let admin = AdminClient(connection: GatewayConnection(configuration(), group: clients), secretKey: account.secretKey)
    let location = try await admin.createLocation(displayName: "Bench store").id
    let serials = (1...pairs).map { String(format: "BENCH%06d", $0) }
    let readers = try await admin.registerReaders(serials: serials, labelPrefix: "Bench", locationID: location, deviceType: .simulatedWiseposE)

    // Readers: transport handlers answering every command at once (mutual TLS).
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
    let token = try await admin.createConnectionToken(locationID: location).secret
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
    let laneContext = try TLSContext(client: TLSClientConfiguration(trustedCAPath: caPath))
    for lane in lanes {
        guard let token = lane.session?.resumeToken else { fail("a lane has no session") }
        TLSClient.connect(host: "127.0.0.1", port: port, serverName: "localhost", context: laneContext, on: clients.next()) { _ in
            LeanLane(sessionToken: token, counter: counter)
        }
    }
    try await Task.sleep(for: warmup)
    counter.measuring.store(true, ordering: .relaxed)
    let start = ContinuousClock.now
    try await Task.sleep(for: duration)
    counter.measuring.store(false, ordering: .relaxed)
    let elapsed = ContinuousClock.now - start
    counter.stop.store(true, ordering: .relaxed)
    if counter.failures.load(ordering: .relaxed) > 0 { fail("\(counter.failures.load(ordering: .relaxed)) relayed commands failed") }
    let total = counter.count.load(ordering: .relaxed)
    let rate = Double(total) / elapsed.seconds
    FileHandle.standardOutput.write(Data(("{\"label\": \"\(label)\", \"pairs\": \(pairs), \"round_trips\": \(total), \"seconds\": \(String(format: "%.3f", elapsed.seconds)), \"round_trips_per_second\": \(String(format: "%.1f", rate))}" + "\n").utf8))
    await host.shutdown(gracePeriod: .milliseconds(200))
    await database.close()
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
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
