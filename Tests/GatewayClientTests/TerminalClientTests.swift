import GatewayClient
@testable import GatewayClientCore
import GatewayCommandLine
import GatewayTestKit
import GatewayTestSupport
import GatewayWire
import GatewayWireClients
import Synchronization
import Testing

private func configuration(_ server: EchoServer) -> ClientChannelConfiguration {
    ClientChannelConfiguration(host: "127.0.0.1", port: server.port, trustedCAPath: ClientTestCertificates.shared.caPath)
}

/// Records what the delegate hears, in order.
private final class RecordingDelegate: TerminalDelegate {
    let disconnects = Mutex<[DisconnectInfo]>([])
    func terminal(_ terminal: TerminalClient, didDisconnect info: DisconnectInfo) {
        disconnects.withLock { $0.append(info) }
    }
}

@Suite("TerminalClient and AdminClient against a fake gateway over real TLS")
struct TerminalClientTests {
    @Test("AdminClient sends the secret key; a wrong key is UNAUTHENTICATED (gatewayctl exit 77)")
    func adminSecretKey() async throws {
        let server = try EchoServer()
        let connection = GatewayConnection(configuration(server), group: server.group)
        let ownerships = try await AdminClient(connection: connection, secretKey: EchoServer.secretKey).listOwnership()
        #expect(ownerships.map(\.generation) == [4])
        do {
            _ = try await AdminClient(connection: connection, secretKey: "sk_wrong").listOwnership()
            Issue.record("a wrong secret key must be refused")
        } catch let error as RPCError {
            #expect(error.reason == .secretKeyInvalid)
            #expect(ExitCode(error) == .permission)
        }
        connection.close()
        await server.stop()
    }

    @Test("events nobody reads are kept up to the limit, the latest ones, in order")
    func unreadEventsAreBounded() async throws {
        let server = try EchoServer()
        let connection = GatewayConnection(configuration(server), group: server.group)
        let terminal = TerminalClient(connection: connection)
        let extra = 10
        for index in 0..<(TerminalClient.eventBufferLimit + extra) {
            terminal.emit(.reconnectStarted(readerID: "tmr_\(index)"))
        }
        var kept: [String] = []
        var iterator = terminal.events.makeAsyncIterator()
        for _ in 0..<TerminalClient.eventBufferLimit {
            guard case .reconnectStarted(let readerID) = await iterator.next() else { break }
            kept.append(readerID)
        }
        #expect(kept == (extra..<(TerminalClient.eventBufferLimit + extra)).map { "tmr_\($0)" })
        connection.close()
        await server.stop()
    }

    @Test("a dropped connection is repaired: the session resumes with its resume token")
    func automaticResume() async throws {
        let server = try EchoServer()
        let terminal = TerminalClient(connection: GatewayConnection(configuration(server), group: server.group))
        let session = try await terminal.openSession(connectionToken: "pst_1", posDeviceID: "pos-a", laneLabel: "Lane A")
        #expect(session.resumeToken == "st_1")
        #expect(!session.resumed)
        #expect(await eventually { server.snapshot.subscribers == 1 })
        server.dropConnections()
        var iterator = terminal.events.makeAsyncIterator()
        var sawLoss = false
        var resumed: TerminalSession?
        for _ in 0..<10 {
            guard let event = await iterator.next() else { break }
            if case .connectionLost = event { sawLoss = true }
            if case .sessionResumed(let session) = event {
                resumed = session
                break
            }
        }
        #expect(sawLoss)
        #expect(resumed?.resumed == true)
        #expect(server.snapshot.openSessions.last?.resumeToken == "st_1")
        #expect(await eventually { server.snapshot.subscribers == 2 })
        try await terminal.closeSession()
        await server.stop()
    }

    /// A client whose ``TerminalClient/lostEventGrace`` ends when the test opens the gate.
    private func terminalWithLossReportGate(_ server: EchoServer) -> (TerminalClient, Gate) {
        let gate = Gate()
        let terminal = TerminalClient(
            connection: GatewayConnection(configuration(server), group: server.group), callTimeout: .seconds(15), paymentTimeout: .seconds(300),
            lostEventGrace: LostEventGrace { await gate.wait() }
        )
        return (terminal, gate)
    }

    /// Opens a session and connects tmr_1 (generation 1), with the event stream subscribed.
    /// The fake gateway resumes every session without its reader.
    private func openAndConnect(_ server: EchoServer, _ terminal: TerminalClient) async throws {
        try await terminal.openSession(connectionToken: "pst_1", posDeviceID: "pos-a", laneLabel: "Lane A")
        try await terminal.connectReader(try await terminal.discoverReaders(locationID: "tml_1")[0], failIfInUse: true)
        #expect(await eventually { server.snapshot.subscribers == 1 })
    }

    @Test("resumed without its reader and no event kept: the client reports the loss once, with the generation that ended")
    func resumedWithoutReaderReportsTheLoss() async throws {
        let server = try EchoServer()
        let (terminal, grace) = terminalWithLossReportGate(server)
        let delegate = RecordingDelegate()
        terminal.setDelegate(delegate)
        try await openAndConnect(server, terminal)
        server.dropConnections()
        // Resumed, re-subscribed, and no event came: the grace ends and the client reports.
        #expect(await eventually { server.snapshot.subscribers == 2 })
        grace.open()
        await terminal.lossReportHasRun()
        // The delegate hears it on the main actor, after the event stream.
        #expect(await eventually { !delegate.disconnects.withLock { $0.isEmpty } })
        let heard = delegate.disconnects.withLock { $0 }
        #expect(heard.count == 1)
        #expect(heard.first?.readerID == "tmr_1")
        #expect(heard.first?.reason == .readerLost)
        #expect(heard.first?.generation == 1)
        #expect(terminal.connectedReader == nil)
        try await terminal.closeSession()
        await server.stop()
    }

    @Test("resumed without its reader and the gateway kept the event: the lane hears the gateway's reason, once")
    func resumedWithoutReaderHearsTheKeptEvent() async throws {
        let server = try EchoServer()
        var disconnected = ReaderGatewayV1.ReaderDisconnected()
        disconnected.readerID = "tmr_1"
        disconnected.reason = .replaced
        disconnected.generation = 1
        disconnected.takenByLaneLabel = "Lane B"
        var kept = ReaderGatewayV1.SessionEvent()
        kept.sequence = 1
        kept.event = .disconnected(disconnected)
        let (terminal, grace) = terminalWithLossReportGate(server)
        let delegate = RecordingDelegate()
        terminal.setDelegate(delegate)
        try await openAndConnect(server, terminal)
        let keptEvents = [kept]
        server.configure { $0.eventsOnNextSubscribe = keptEvents }
        server.dropConnections()
        // The kept event arrives within the grace; when the grace then ends, the client
        // finds the loss heard and reports nothing more.
        #expect(await eventually { !delegate.disconnects.withLock { $0.isEmpty } })
        grace.open()
        await terminal.lossReportHasRun()
        let heard = delegate.disconnects.withLock { $0 }
        #expect(heard.count == 1, "heard \(heard.map(\.reason))")
        #expect(heard.first?.reason == .replaced)
        #expect(heard.first?.takenByLaneLabel == "Lane B")
        try await terminal.closeSession()
        await server.stop()
    }

    @Test("a filtered discovery keeps only the reader named when the gateway ignores the filter (a release before it)")
    func filterKeptByTheClient() async throws {
        let server = try EchoServer()
        let terminal = TerminalClient(connection: GatewayConnection(configuration(server), group: server.group))
        try await terminal.openSession(connectionToken: "pst_1", posDeviceID: "pos-a", laneLabel: "Lane A")
        // The fake gateway lists its one reader, tmr_1 (no serial), whatever the filter.
        #expect(try await terminal.discoverReaders(locationID: "tml_1").map(\.id) == ["tmr_1"])
        #expect(try await terminal.discoverReaders(locationID: "tml_1", filter: .readerID("tmr_1")).map(\.id) == ["tmr_1"])
        #expect(try await terminal.discoverReaders(locationID: "tml_1", filter: .readerID("tmr_2")).isEmpty)
        #expect(try await terminal.discoverReaders(locationID: "tml_1", filter: .serialNumber("WSC-1")).isEmpty)
        // EasyConnect is a method the fake gateway does not know: the error comes through and
        // nothing is shown connected.
        await #expect(throws: RPCError.self) { try await terminal.easyConnect(locationID: "tml_1", filter: .readerID("tmr_1")) }
        #expect(terminal.connectedReader == nil)
        #expect(terminal.connectionStatus == .notConnected)
        try await terminal.closeSession()
        await server.stop()
    }

    @Test("a displaced lane hears didDisconnect (with who took the reader) before its command fails")
    func disconnectBeforeCommandError() async throws {
        let server = try EchoServer()
        let terminal = TerminalClient(connection: GatewayConnection(configuration(server), group: server.group))
        let delegate = RecordingDelegate()
        terminal.setDelegate(delegate)
        try await terminal.openSession(connectionToken: "pst_1", posDeviceID: "pos-a", laneLabel: "Lane A")
        let readers = try await terminal.discoverReaders(locationID: "tml_1")
        #expect(readers.map(\.discoveryID) == ["disc_1"])
        try await terminal.connectReader(readers[0], failIfInUse: true)
        #expect(terminal.connectedReader?.id == "tmr_1")
        #expect(await eventually { server.snapshot.subscribers == 1 })

        // A reader object from another discovery is refused.
        var stale = readers[0]
        stale.discoveryID = "disc_0"
        await #expect(throws: RPCError.self) { try await terminal.connectReader(stale) }

        server.configure { $0.takeOverOnCommand = true }
        do {
            try await terminal.clearReaderDisplay()
            Issue.record("the command should fail once another lane took the reader")
        } catch let error as TerminalError {
            #expect(error.code == .readerConnectedToAnotherDevice)
            #expect(error.underlying.reason == .readerConnectedToAnotherSession)
            #expect(error.takenBy?.takenByLaneLabel == "Lane B")
            #expect(error.takenBy?.takenByPosDeviceID == "pos-b")
            // Already told, before the error arrived:
            let told = delegate.disconnects.withLock { $0 }
            #expect(told.first?.reason == .replaced)
            #expect(told.first?.takenByLaneLabel == "Lane B")
            #expect(terminal.connectedReader == nil)
        }
        try await terminal.closeSession()
        await server.stop()
    }

    @Test("GatewayConnection opens a new channel after GOAWAY and after a lost connection")
    func reconnects() async throws {
        let server = try EchoServer()
        let connection = GatewayConnection(configuration(server), group: server.group)
        let admin = AdminClient(connection: connection, secretKey: EchoServer.secretKey)
        _ = try await admin.listOwnership()
        let first = try #require(connection.currentChannel)
        server.goAway()
        #expect(await eventually { !first.state.acceptsCalls })
        _ = try await admin.listOwnership()
        #expect(server.snapshot.connections == 2)
        server.dropConnections()
        #expect(await eventually { connection.currentChannel?.state.isClosed == true })
        _ = try await admin.listOwnership()
        #expect(server.snapshot.connections == 3)
        connection.close()
        await server.stop()
    }

    @Test("calls without a session fail at once with SESSION_EXPIRED")
    func noSession() async throws {
        let server = try EchoServer()
        let terminal = TerminalClient(connection: GatewayConnection(configuration(server), group: server.group))
        await #expect(throws: RPCError.self) { try await terminal.discoverReaders(locationID: "tml_1") }
        await server.stop()
    }
}
