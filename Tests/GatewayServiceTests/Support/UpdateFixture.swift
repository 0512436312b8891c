import Foundation
import GatewayClient
import GatewayService
import GatewayTestKit
import GatewayTestSupport
import GatewayTransport
import GatewayWire
import GatewayWireClients
import Synchronization
import Testing

/// A wall clock the test sets: the gateway's software update rules read it, so a test moves
/// time forward (to a required_at, past 30 days) without waiting.
final class SettableClock: Sendable {
    private let value: Atomic<Int64>

    init(_ startUnixMs: Int64) {
        value = Atomic(startUnixMs)
    }

    var nowUnixMs: Int64 { value.load(ordering: .relaxed) }

    func advance(by milliseconds: Int64) {
        value.add(milliseconds, ordering: .relaxed)
    }

    var wallClock: WallClock { WallClock { [self] in nowUnixMs } }

    static let hour: Int64 = 3_600_000
    static let day: Int64 = 24 * hour
}

/// Every event a lane's TerminalClient reported, in order.
final class EventLog: Sendable {
    private let events = Mutex<[TerminalEvent]>([])
    private let task: Mutex<Task<Void, Never>?> = Mutex(nil)

    init(_ client: TerminalClient) {
        let stream = client.events
        let started = Task { [self] in
            for await event in stream { record(event) }
        }
        task.withLock { $0 = started }
    }

    private func record(_ event: TerminalEvent) {
        events.withLock { $0.append(event) }
    }

    func stop() { task.withLock { $0?.cancel() } }

    var snapshot: [TerminalEvent] { events.withLock { $0 } }

    /// The progress values reported, in order.
    var progress: [Float] {
        snapshot.compactMap { if case .updateProgress(_, let progress) = $0 { progress } else { nil } }
    }

    var started: [ReaderSoftwareUpdate] {
        snapshot.compactMap { if case .updateStarted(_, let update) = $0 { update } else { nil } }
    }

    var available: [ReaderSoftwareUpdate] {
        snapshot.compactMap { if case .updateAvailable(_, let update) = $0 { update } else { nil } }
    }
}

/// A gateway whose update rules run on a ``SettableClock``, one `reader-sim` process with a
/// mobile reader registered at a location, and lanes connecting to it through the client
/// library.
struct UpdateFixture {
    let harness: GatewayHarness
    let clock: SettableClock
    let admin: AdminClient
    let adminConnection: GatewayConnection
    let location: String
    let simulator: LoggedProcess
    let readerID: String
    let serial: String

    /// 2030-03-17T17:46:40Z: far from the machine's clock, so nothing passes by accident.
    static let start: Int64 = 1_900_000_000_000

    /// Starts everything; `simulatorArguments` add to the mobile reader's (battery, update behaviour).
    static func start(serial: String, simulatorArguments: [String] = []) async throws -> UpdateFixture {
        let clock = SettableClock(start)
        let harness = try await GatewayHarness.start(updateClock: clock.wallClock)
        let connection = GatewayConnection(harness.clientConfiguration)
        let admin = AdminClient(connection: connection, secretKey: harness.account.secretKey)
        let location = try await admin.createLocation(displayName: "Floor").id
        let simulator = try await startSimulator(harness, serial: serial, arguments: [
            "--device-type", "mobile", "--software-version", "1.0.0", "--update-duration", "200ms",
        ] + simulatorArguments)
        let codeLine = try #require(await simulator.waitForLine(containing: "registration_code"), "no code:\n\(simulator.output)")
        let code = try #require(LoggedProcess.field("code", in: codeLine))
        let reader = try await admin.registerReader(code: code, label: "Floor reader", locationID: location)
        _ = try #require(await simulator.waitForLine(containing: "online"), "reader-sim not online:\n\(simulator.output)")
        return UpdateFixture(
            harness: harness, clock: clock, admin: admin, adminConnection: connection, location: location, simulator: simulator,
            readerID: reader.id, serial: serial
        )
    }

    static func startSimulator(_ harness: GatewayHarness, serial: String, arguments: [String]) async throws -> LoggedProcess {
        try await LoggedProcess.start(
            PackageExecutables.path("reader-sim"),
            ["--gateway", "127.0.0.1:\(harness.port)", "--ca", harness.caPath, "--serial", serial, "--heartbeat-interval", "200ms", "--reconnect-delay", "200ms"]
                + arguments,
            logPath: harness.directory + "/sim-\(serial).log"
        )
    }

    /// A lane (its own connection and session) with its events logged.
    func lane(_ label: String, device: String) async throws -> (TerminalClient, EventLog) {
        let connection = GatewayConnection(harness.clientConfiguration)
        let client = TerminalClient(connection: connection)
        let log = EventLog(client)
        let token = try await admin.createConnectionToken(locationID: location).secret
        try await client.openSession(connectionToken: token, posDeviceID: device, laneLabel: label)
        return (client, log)
    }

    /// Discovers the fixture's reader (as the lane sees it) and connects to it.
    @discardableResult
    func connect(_ client: TerminalClient) async throws -> ReaderGatewayV1.ConnectReaderResponse {
        try await client.connectReader(try await discover(client))
    }

    func discover(_ client: TerminalClient) async throws -> DiscoveredReader {
        let readers = try await client.discoverReaders(locationID: location)
        return try #require(readers.first { $0.id == readerID }, "the reader is not discovered: \(readers)")
    }

    /// Adds `version` of the mobile reader's software to the catalog.
    @discardableResult
    func addUpdate(_ version: String, requiredAt: Int64?) async throws -> ReaderGatewayV1.ReaderSoftwareUpdate {
        var update = ReaderGatewayV1.ReaderSoftwareUpdate()
        update.deviceType = .mobile
        update.version = version
        update.components = ["firmware", "config"]
        update.durationEstimate = .lessThanOneMinute
        update.requiredAtUnixMs = requiredAt ?? 0
        return try #require(try await admin.addSoftwareUpdate(update).update)
    }

    /// Who owns the reader now (nil: nobody).
    func owner() async throws -> ReaderGatewayV1.ReaderOwner? {
        let owner = try await admin.getReader(readerID).ownership?.owner
        return owner?.sessionID.isEmpty == false ? owner : nil
    }

    /// How many lines of the simulator's output contain `text`.
    func simulatorLines(containing text: String) -> Int {
        simulator.output.split(separator: "\n").filter { $0.contains(text) }.count
    }

    func stop() async {
        _ = await simulator.stop()
        adminConnection.close()
        await harness.stop()
    }
}
