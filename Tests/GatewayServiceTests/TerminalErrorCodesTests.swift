import GatewayClient
import GatewayTestKit
import GatewayWire
import Testing

/// Every kind of failure reaches an app through TerminalClient's public async calls as the
/// ``TerminalError`` code docs/client.md names, with the gateway's precise error underneath:
/// a canceled collect, a busy reader refused for `failIfInUse`, a takeover (the lane's next
/// command names who took the reader), an invalid connection token. The deadline's
/// `requestTimedOut` is checked over the in-memory transport (TerminalSessionOverTransportTests).
@Suite("TerminalError codes through the public calls", .timeLimit(.minutes(3)))
struct TerminalErrorCodesTests {
    /// A provider handing out a token the gateway does not know.
    struct RevokedTokenProvider: ConnectionTokenProvider {
        func fetchConnectionToken() async throws -> String { "pst_revoked_long_ago" }
    }

    @Test func canceledBusyAndTakenOverArriveAsTerminalCodes() async throws {
        let harness = try await GatewayHarness.start()
        let store = try await StoreFixture.make(harness)
        let configuration = harness.clientConfiguration
        let connection = GatewayConnection(configuration)
        let lane = try await store.openedLane(1, on: connection)
        let other = try await store.openedLane(2, on: connection)
        let target = try #require(try await lane.discoverReaders(InternetDiscoveryConfiguration(locationID: store.location)).first { $0.id == store.readerID })
        try await lane.connectReader(target, connectionConfig: InternetConnectionConfiguration(failIfInUse: true))

        // A collect canceled by the app: `canceled`, over the gateway's COMMAND_CANCELED.
        let canceled = Task { try await lane.collectPaymentMethod(PaymentIntentParameters(id: "pi_codes_1", amount: 500, currency: "usd")) }
        #expect(await eventually { store.reader.isHoldingCollect })
        try await lane.cancelCollectPaymentMethod()
        let cancelError = await #expect(throws: TerminalError.self) { try await canceled.value }
        #expect(cancelError?.code == .canceled, "\(String(describing: cancelError))")
        #expect(cancelError?.underlying.reason == .commandCanceled)

        // Mid-collect, another lane asking with failIfInUse: `readerBusy`, and the reader stays.
        let interrupted = Task { try await lane.collectPaymentMethod(PaymentIntentParameters(id: "pi_codes_2", amount: 700, currency: "usd")) }
        #expect(await eventually { store.reader.isHoldingCollect })
        let found = try #require(try await other.discoverReaders(InternetDiscoveryConfiguration(locationID: store.location)).first { $0.id == store.readerID })
        let busy = await #expect(throws: TerminalError.self) {
            try await other.connectReader(found, connectionConfig: InternetConnectionConfiguration(failIfInUse: true))
        }
        #expect(busy?.code == .readerBusy, "\(String(describing: busy))")
        #expect(busy?.underlying.reason == .readerBusy)
        #expect(busy?.takenBy == nil)
        #expect(other.connectedReader == nil)

        // Taken over: the collect in flight ends with `readerConnectedToAnotherDevice`; once the
        // lane heard who took the reader, its next command names that lane and device.
        try await other.connectReader(found, connectionConfig: InternetConnectionConfiguration(failIfInUse: false))
        let lost = await #expect(throws: TerminalError.self) { try await interrupted.value }
        #expect(lost?.code == .readerConnectedToAnotherDevice, "\(String(describing: lost))")
        #expect(lost?.underlying.reason == .readerConnectedToAnotherSession)
        var heard: DisconnectInfo?
        for await event in lane.events {
            if case .disconnected(let info) = event {
                heard = info
                break
            }
        }
        #expect(heard?.reason == .replaced)
        let next = await #expect(throws: TerminalError.self) { try await lane.clearReaderDisplay() }
        #expect(next?.code == .readerConnectedToAnotherDevice, "\(String(describing: next))")
        #expect(next?.underlying.reason == .readerConnectedToAnotherSession)
        #expect(next?.takenBy?.takenByLaneLabel == "Lane 2", "\(String(describing: next))")
        #expect(next?.takenBy?.takenByPosDeviceID == "pos-2")
        #expect(next?.takenBy?.readerID == store.readerID)

        try await lane.closeSession()
        try await other.closeSession()
        connection.close()
        await harness.stop()
    }

    @Test func anInvalidConnectionTokenIsTheProvidersError() async throws {
        let harness = try await GatewayHarness.start()
        let configuration = harness.clientConfiguration
        let connection = GatewayConnection(configuration)

        // Opened by the app with a token the gateway refuses.
        let lane = TerminalClient(connection: connection)
        let opened = await #expect(throws: TerminalError.self) {
            try await lane.openSession(connectionToken: "pst_revoked_long_ago", posDeviceID: "pos-1", laneLabel: "Lane 1")
        }
        #expect(opened?.code == .connectionTokenProviderCompletedWithError, "\(String(describing: opened))")
        #expect(opened?.underlying.reason == .connectionTokenInvalid)
        #expect(lane.session == nil)

        // Opened by the client with its provider's token, for the call that needed the session.
        let provided = TerminalClient(connection: connection, tokenProvider: RevokedTokenProvider(), posDeviceID: "pos-2", laneLabel: "Lane 2")
        let discovered = await #expect(throws: TerminalError.self) {
            try await provided.discoverReaders(InternetDiscoveryConfiguration(locationID: "tml_1"))
        }
        #expect(discovered?.code == .connectionTokenProviderCompletedWithError, "\(String(describing: discovered))")
        #expect(discovered?.underlying.reason == .connectionTokenInvalid)

        connection.close()
        await harness.stop()
    }
}
