import GatewayClientCore
import GatewayWire
import Testing

/// A checkout screen's view model, as an app writes it: main-actor isolated, conforming to
/// both delegates with plain methods (no `nonisolated`, no hop). That this file compiles in
/// language mode 6 is half of the test.
@MainActor
final class CheckoutViewModel: TerminalDelegate, ReaderDelegate {
    private(set) var heard: [String] = []
    private(set) var disconnects: [DisconnectInfo] = []

    func terminal(_ terminal: TerminalClient, didDisconnect info: DisconnectInfo) {
        MainActor.assertIsolated("the terminal delegate is called on the main actor")
        disconnects.append(info)
        heard.append("terminal didDisconnect")
    }

    // The Tap to Pay reconnect's reason is the library's `DisconnectReason`: a main-actor
    // conformance names it like any other model (no wire type, no `nonisolated`).
    func terminal(_ terminal: TerminalClient, didStartReconnect readerID: String, reason: DisconnectReason) {
        if reason == .appInBackground { heard.append("terminal didStartReconnect appInBackground") }
    }

    func terminal(_ terminal: TerminalClient, didReceive event: TerminalEvent) {
        if case .disconnected = event { heard.append("terminal didReceive disconnected") }
    }

    func reader(_ readerID: String, didDisconnect info: DisconnectInfo) {
        MainActor.assertIsolated("the reader delegate is called on the main actor")
        heard.append("reader didDisconnect")
    }
}

@Suite("Delegates on the main actor, over the in-memory transport", .timeLimit(.minutes(1)))
struct MainActorDelegateTests {
    @Test("a @MainActor view model is the terminal and reader delegate; a command failing for a takeover returns after both heard it")
    func mainActorViewModel() async throws {
        let gateway = ScriptedGateway(SessionScript.answers())
        let connection = GatewayConnection(TerminalSessionOverTransportTests.configuration, transport: InMemoryClientTransport(gateway: gateway))
        let terminal = TerminalClient(connection: connection)
        let model = CheckoutViewModel()
        terminal.setDelegate(model)
        try await TerminalSessionOverTransportTests.connect(terminal, through: gateway, InternetConnectionConfiguration(failIfInUse: true, delegate: model))

        // The gateway sends the takeover, then fails the command; the error comes back only
        // once the view model heard the loss, through both delegates, on the main actor.
        let error = await #expect(throws: TerminalError.self) { try await terminal.clearReaderDisplay() }
        #expect(error?.code == .readerConnectedToAnotherDevice)
        #expect(error?.underlying.reason == .readerConnectedToAnotherSession)
        #expect(error?.takenBy?.takenByLaneLabel == "Lane 7")
        let (heard, disconnects) = await MainActor.run { (model.heard, model.disconnects) }
        #expect(heard.sorted() == ["reader didDisconnect", "terminal didDisconnect", "terminal didReceive disconnected"])
        #expect(disconnects.map(\.takenByLaneLabel) == ["Lane 7"])
        #expect(disconnects.map(\.reason) == [.replaced])
        #expect(terminal.connectedReader == nil)
    }
}
