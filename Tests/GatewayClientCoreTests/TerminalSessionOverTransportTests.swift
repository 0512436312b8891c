import GatewayClientCore
import GatewayWire
import Testing

/// The client core's session logic over a transport in memory: `TerminalClient` and its
/// `GatewayConnection` reach a scripted gateway through ``InMemoryClientTransport``, with no
/// socket, no TLS and no event loop: what an app on any platform runs, its transport aside.
@Suite("The client core over an in-memory transport", .timeLimit(.minutes(1)))
struct TerminalSessionOverTransportTests {
    static let configuration = ClientChannelConfiguration(host: "scripted", port: 0, keepalive: nil)

    func terminal(_ gateway: ScriptedGateway) -> TerminalClient {
        TerminalClient(connection: GatewayConnection(Self.configuration, transport: InMemoryClientTransport(gateway: gateway)))
    }

    /// Opens `terminal`'s session, discovers the script's reader and connects it with `connectionConfig`;
    /// returns once the gateway saw the event stream subscribed on the first connection.
    static func connect(
        _ terminal: TerminalClient, through gateway: ScriptedGateway, _ connectionConfig: InternetConnectionConfiguration = .init()
    ) async throws {
        try await terminal.openSession(connectionToken: "pst_core", posDeviceID: "pos-1", laneLabel: "Lane 1")
        let readers = try await terminal.discoverReaders(InternetDiscoveryConfiguration(locationID: "tml_core"))
        try await terminal.connectReader(try #require(readers.first), connectionConfig: connectionConfig)
        #expect(await gateway.next { $0 == .called(path: ReaderGatewayV1.Sdk.subscribeEvents.path, connection: 1) } != nil)
    }

    @Test("a session opens, discovers and connects the reader; the gateway saw each request as sent")
    func openDiscoverConnect() async throws {
        let gateway = ScriptedGateway(SessionScript.answers())
        let terminal = terminal(gateway)
        let session = try await terminal.openSession(connectionToken: "pst_core", posDeviceID: "pos-1", laneLabel: "Lane 1")
        #expect(session.sessionID == "sess_core_1")
        #expect(session.lease == .milliseconds(SessionScript.leaseMs))
        #expect(!session.resumed)

        let readers = try await terminal.discoverReaders(InternetDiscoveryConfiguration(locationID: "tml_core"))
        #expect(readers.map(\.id) == [SessionScript.reader.id])
        #expect(readers.first?.discoveryID == "disc_core_1")

        let reader = try await terminal.connectReader(try #require(readers.first), connectionConfig: InternetConnectionConfiguration(failIfInUse: true))
        #expect(reader.id == SessionScript.reader.id && reader.label == "Front counter")
        #expect(terminal.connectedReader?.id == SessionScript.reader.id)
        #expect(terminal.connectionStatus == .connected)
        let details = try #require(terminal.latestConnection)
        #expect(details.generation == 1 && !details.replacedOtherSession && details.requiredUpdateFailure == nil)
        #expect(details.discoveryID == "disc_core_1" && details.reader == reader)

        let calls = gateway.calls
        let open = try #require(calls.first { $0.path == ReaderGatewayV1.Sdk.openSession.path })
        let openRequest = try open.decode(ReaderGatewayV1.Sdk.openSession)
        #expect(openRequest.connectionToken == "pst_core")
        #expect(openRequest.posDeviceID == "pos-1")
        #expect(openRequest.laneLabel == "Lane 1")
        #expect(openRequest.resumeToken.isEmpty)
        let connect = try #require(calls.first { $0.path == ReaderGatewayV1.Sdk.connectReader.path })
        let connectRequest = try connect.decode(ReaderGatewayV1.Sdk.connectReader)
        #expect(connectRequest.sessionToken == SessionScript.sessionToken)
        #expect(connectRequest.readerID == SessionScript.reader.id)
        #expect(connectRequest.discoveryID == "disc_core_1")
        #expect(connectRequest.failIfInUse)
        // One connection carried every call.
        #expect(Set(calls.map(\.connection)) == [1])
    }

    @Test("an easy connect answers the Reader and keeps the gateway's extras in latestConnection; a Cart reaches the gateway as sent")
    func easyConnectAndCart() async throws {
        let gateway = ScriptedGateway(SessionScript.answers())
        let terminal = terminal(gateway)
        try await terminal.openSession(connectionToken: "pst_core", posDeviceID: "pos-1", laneLabel: "Lane 1")
        #expect(terminal.latestConnection == nil)

        let reader = try await terminal.easyConnect(InternetEasyConnectConfiguration(
            locationID: "tml_core", filter: .serialNumber("WSC-CORE-1"), connectionConfiguration: InternetConnectionConfiguration(failIfInUse: true)
        ))
        #expect(reader.id == SessionScript.reader.id && reader.serialNumber == "WSC-CORE-1")
        #expect(terminal.connectedReader?.id == SessionScript.reader.id)
        let details = try #require(terminal.latestConnection)
        #expect(details.generation == 2 && details.replacedOtherSession && details.discoveryID == "disc_core_2")
        #expect(details.requiredUpdateFailure?.code == .readerSoftwareUpdateFailed)
        #expect(details.requiredUpdateFailure?.message == "the required update failed halfway")

        try await terminal.setReaderDisplay(Cart(currency: "usd", lineItems: [.init(displayName: "Coffee", quantity: 2, amount: 700)], tax: 56, total: 756))

        let calls = gateway.calls
        let easy = try #require(calls.first { $0.path == ReaderGatewayV1.Sdk.easyConnect.path }).decode(ReaderGatewayV1.Sdk.easyConnect)
        #expect(easy.locationID == "tml_core" && easy.filter?.serialNumber == "WSC-CORE-1" && easy.failIfInUse)
        let display = try #require(calls.first { $0.path == ReaderGatewayV1.Sdk.setReaderDisplay.path }).decode(ReaderGatewayV1.Sdk.setReaderDisplay)
        let cart = try #require(display.cart)
        #expect(cart.currency == "usd" && cart.tax == 56 && cart.total == 756)
        #expect(cart.lineItems.map { [$0.description, "\($0.quantity)", "\($0.amount)"] } == [["Coffee", "2", "700"]])
    }

    @Test("a takeover reaches the lane as a disconnected event naming who took the reader, and the reader is gone")
    func takeover() async throws {
        let gateway = ScriptedGateway(SessionScript.answers())
        let terminal = terminal(gateway)
        var events = terminal.events.makeAsyncIterator()
        // The event stream is subscribed before the gateway has anything to say on it.
        try await Self.connect(terminal, through: gateway)

        gateway.push(SessionScript.takeover(by: "Lane 9"))
        let event = await events.next { if case .disconnected = $0 { true } else { false } }
        guard case .disconnected(let info)? = event else {
            Issue.record("the event stream ended without the takeover: \(String(describing: event))")
            return
        }
        #expect(info.readerID == SessionScript.reader.id)
        #expect(info.reason == .replaced)
        #expect(info.takenByLaneLabel == "Lane 9")
        #expect(info.takenByPosDeviceID == "pos-9")
        #expect(terminal.connectedReader == nil)
        #expect(terminal.connectionStatus == .notConnected)
    }

    @Test("a dropped connection is replaced and the session resumed with its token, keeping its reader")
    func droppedConnectionResumes() async throws {
        let gateway = ScriptedGateway(SessionScript.answers())
        let terminal = terminal(gateway)
        var events = terminal.events.makeAsyncIterator()
        try await Self.connect(terminal, through: gateway)

        gateway.dropConnections()
        let lost = await events.next { if case .connectionLost = $0 { true } else { false } }
        guard case .connectionLost(let error)? = lost else {
            Issue.record("no connectionLost event: \(String(describing: lost))")
            return
        }
        #expect(error.code == .gatewayUnavailable && error.underlying.code == .unavailable)
        let resumedEvent = await events.next { if case .sessionResumed = $0 { true } else { false } }
        guard case .sessionResumed(let resumed)? = resumedEvent else {
            Issue.record("no sessionResumed event: \(String(describing: resumedEvent))")
            return
        }
        #expect(resumed.resumed)
        #expect(resumed.sessionID == "sess_core_1")
        #expect(resumed.connectedReader?.id == SessionScript.reader.id)
        #expect(terminal.connectedReader?.id == SessionScript.reader.id)

        // The resume went over a second connection, with the session's token, and the event
        // stream was subscribed again there.
        #expect(await gateway.next { $0 == .called(path: ReaderGatewayV1.Sdk.subscribeEvents.path, connection: 2) } != nil)
        let reopen = try #require(gateway.calls.first { $0.path == ReaderGatewayV1.Sdk.openSession.path && $0.connection == 2 })
        #expect(try reopen.decode(ReaderGatewayV1.Sdk.openSession).resumeToken == SessionScript.sessionToken)

        // The resumed session hears the gateway as before.
        gateway.push(SessionScript.takeover(by: "Lane 4"))
        let event = await events.next { if case .disconnected = $0 { true } else { false } }
        guard case .disconnected(let info)? = event else {
            Issue.record("no takeover after the resume: \(String(describing: event))")
            return
        }
        #expect(info.takenByLaneLabel == "Lane 4")
    }

    @Test("a call the gateway does not answer ends at its deadline with DEADLINE_EXCEEDED; the connection carries the next call")
    func deadline() async throws {
        let gateway = ScriptedGateway(SessionScript.answers(holdDiscovery: true))
        let terminal = terminal(gateway)
        try await terminal.openSession(connectionToken: "pst_core", posDeviceID: "pos-1", laneLabel: "Lane 1")
        // The session's own calls have the long deadline of a lane; this one is short, as the
        // outcome (not its timing) is what is checked.
        var discover = ReaderGatewayV1.DiscoverReadersRequest()
        discover.sessionToken = SessionScript.sessionToken
        let error = await #expect(throws: RPCError.self) {
            try await terminal.connection.unary(ReaderGatewayV1.Sdk.discoverReaders, discover, timeout: .milliseconds(200), attempts: 1)
        }
        #expect(error?.code == .deadlineExceeded)
        // Only that call ended: the same connection carries the next one.
        var heartbeat = ReaderGatewayV1.HeartbeatRequest()
        heartbeat.sessionToken = SessionScript.sessionToken
        _ = try await terminal.connection.unary(ReaderGatewayV1.Sdk.heartbeat, heartbeat, timeout: .seconds(15), attempts: 1)
        #expect(Set(gateway.calls.map(\.connection)) == [1])
    }

    @Test("a public call the gateway does not answer ends at its deadline with requestTimedOut, over DEADLINE_EXCEEDED")
    func publicCallDeadline() async throws {
        let gateway = ScriptedGateway(SessionScript.answers(holdDiscovery: true))
        let terminal = TerminalClient(
            connection: GatewayConnection(Self.configuration, transport: InMemoryClientTransport(gateway: gateway)), callTimeout: .seconds(1)
        )
        try await terminal.openSession(connectionToken: "pst_core", posDeviceID: "pos-1", laneLabel: "Lane 1")
        let error = await #expect(throws: TerminalError.self) {
            try await terminal.discoverReaders(InternetDiscoveryConfiguration(locationID: "tml_core"))
        }
        #expect(error?.code == .requestTimedOut, "\(String(describing: error))")
        #expect(error?.underlying.code == .deadlineExceeded)
        #expect(error?.takenBy == nil)
    }

    @Test("cancelling the task of a waiting call fails it with CANCELLED and sends CANCEL to the gateway")
    func cancellation() async throws {
        let gateway = ScriptedGateway(SessionScript.answers(holdDiscovery: true))
        let terminal = terminal(gateway)
        try await terminal.openSession(connectionToken: "pst_core", posDeviceID: "pos-1", laneLabel: "Lane 1")
        let discovery = Task { try await terminal.discoverReaders(InternetDiscoveryConfiguration(locationID: "tml_core")) }
        // The call reached the gateway and waits there.
        #expect(await gateway.next { $0 == .called(path: ReaderGatewayV1.Sdk.discoverReaders.path, connection: 1) } != nil)
        discovery.cancel()
        let result = await discovery.result
        guard case .failure(let error as TerminalError) = result else {
            Issue.record("the cancelled discovery did not fail with a TerminalError: \(result)")
            return
        }
        #expect(error.code == .canceled)
        #expect(error.underlying.code == .cancelled)
        #expect(await gateway.next { $0 == .cancelled(path: ReaderGatewayV1.Sdk.discoverReaders.path) } != nil)
    }
}
