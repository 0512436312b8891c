import GatewayClient
import GatewayTransport
import GatewayWire
import Synchronization

/// A point-of-sale lane: GatewayClient's ``TerminalClient`` (which resumes its session with
/// its resume token after a dropped connection) with its events recorded.
final class ClusterLane: Sendable {
    let label: String
    let port: Int
    let terminal: TerminalClient
    private let events = Mutex<[TerminalEvent]>([])
    private let pump = Mutex<Task<Void, Never>?>(nil)

    private init(label: String, port: Int, terminal: TerminalClient) {
        self.label = label
        self.port = port
        self.terminal = terminal
    }

    /// Opens a session on 127.0.0.1:`port` (a replica, or the load balancer).
    static func open(label: String, port: Int, caPath: String, token: String, group: EventLoopGroup, callTimeout: Duration = .seconds(10)) async throws -> ClusterLane {
        var configuration = ClientChannelConfiguration(host: "127.0.0.1", port: port, trustedCAPath: caPath, keepalive: .init(interval: .seconds(5), timeout: .seconds(5)))
        configuration.connectTimeout = .seconds(2)
        let terminal = TerminalClient(connection: GatewayConnection(configuration, group: group), callTimeout: callTimeout, paymentTimeout: .seconds(30))
        let lane = ClusterLane(label: label, port: port, terminal: terminal)
        let task = Task { [lane, stream = terminal.events] in
            for await event in stream { lane.record(event) }
        }
        lane.pump.withLock { $0 = task }
        try await terminal.openSession(connectionToken: token, posDeviceID: "pos-\(label)", laneLabel: label)
        return lane
    }

    private func record(_ event: TerminalEvent) { events.withLock { $0.append(event) } }

    var sessionID: String? { terminal.session?.sessionID }
    var recordedEvents: [TerminalEvent] { events.withLock { $0 } }

    var disconnects: [DisconnectInfo] {
        recordedEvents.compactMap { if case .disconnected(let info) = $0 { info } else { nil } }
    }

    var resumes: Int {
        recordedEvents.reduce(0) { count, event in if case .sessionResumed = event { count + 1 } else { count } }
    }

    var sessionEnded: TerminalError? {
        for event in recordedEvents { if case .sessionEnded(let error) = event { return error } }
        return nil
    }

    /// Waits for a `disconnected` event (nil: none within `timeout`).
    func waitForDisconnect(timeout: Duration = .seconds(5)) async -> DisconnectInfo? {
        _ = await eventuallyIgnoringErrors(timeout: timeout) { !disconnects.isEmpty }
        return disconnects.first
    }

    /// Discovers the location's readers as an app would: a new discovery supersedes the last
    /// one, and a RATE_LIMITED answer (the gateway allows a burst of discoveries per session,
    /// then about one a second) is waited out.
    func discover(location: String) async throws -> [DiscoveredReader] {
        for _ in 0..<50 {
            do {
                return try await terminal.discoverReaders(InternetDiscoveryConfiguration(locationID: location))
            } catch let error as TerminalError where error.code == .rateLimited {
                try await Task.sleep(for: .milliseconds(250))
            }
        }
        return try await terminal.discoverReaders(InternetDiscoveryConfiguration(locationID: location))
    }

    /// Discovers the location's readers and connects to `readerID`. Every helper here throws
    /// what the lane's calls throw: a ``TerminalError``.
    @discardableResult
    func connect(_ readerID: String, location: String, failIfInUse: Bool) async throws -> ReaderConnectionDetails {
        let readers = try await discover(location: location)
        guard let reader = readers.first(where: { $0.id == readerID }) else {
            throw TerminalError(RPCError(.readerNotFound, "discovery of \(location) did not return \(readerID) (\(readers.map(\.id)))"))
        }
        return try await connect(reader, failIfInUse: failIfInUse)
    }

    /// Connects to `reader` (of the latest discovery) as a lane app does, and answers what the
    /// gateway said of the connect (its generation, whether it replaced another lane).
    @discardableResult
    func connect(_ reader: DiscoveredReader, failIfInUse: Bool) async throws -> ReaderConnectionDetails {
        let connected = try await terminal.connectReader(reader, connectionConfig: InternetConnectionConfiguration(failIfInUse: failIfInUse))
        let details = try terminal.latestConnection.orThrow("\(label) connected \(connected.id) but the client kept no details of the connect")
        guard details.reader.id == connected.id else {
            throw TerminalError(RPCError(.internal, "\(label) connected \(connected.id) but its latest connection is \(details.reader.id)"))
        }
        return details
    }

    /// Discovers the reader `filter` names and connects it in one call, as a lane app does.
    @discardableResult
    func easyConnect(_ filter: DiscoveryFilter, location: String, failIfInUse: Bool) async throws -> ReaderConnectionDetails {
        let connected = try await terminal.easyConnect(InternetEasyConnectConfiguration(
            locationID: location, filter: filter, connectionConfiguration: InternetConnectionConfiguration(failIfInUse: failIfInUse)
        ))
        let details = try terminal.latestConnection.orThrow("\(label) connected \(connected.id) but the client kept no details of the easy connect")
        guard details.reader.id == connected.id else {
            throw TerminalError(RPCError(.internal, "\(label) connected \(connected.id) but its latest connection is \(details.reader.id)"))
        }
        return details
    }

    /// A cart on the reader: a short command with a reader round trip.
    func display(_ total: Int64 = 1_000) async throws {
        try await terminal.setReaderDisplay(Cart(currency: "usd", total: total))
    }

    /// A collect: the reader is in use until it returns.
    func collect(amount: Int64 = 1_000) async throws -> PaymentIntent {
        let id = "pi_cluster_\(label.filter { $0.isLetter || $0.isNumber })"
        return try await terminal.collectPaymentMethod(PaymentIntentParameters(id: id, amount: amount, currency: "usd"))
    }

    /// Closes the session (best effort) and stops recording.
    func close() async {
        try? await terminal.closeSession()
        terminal.connection.close()
        pump.withLock { $0 }?.cancel()
    }
}

extension RPCError {
    /// Whether the client may send the command again: UNAVAILABLE (connection lost, going
    /// away, store unavailable, reader offline or its link moved), never a silent loss.
    var isRetryableInCluster: Bool { code == .unavailable }
}

extension TerminalError {
    /// Whether the lane may send the command again: the gateway's status is UNAVAILABLE
    /// (``RPCError/isRetryableInCluster``), whatever Terminal's code for it.
    var isRetryableInCluster: Bool { underlying.isRetryableInCluster }
}
