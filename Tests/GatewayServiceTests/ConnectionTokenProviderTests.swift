import GatewayClient
import GatewayTestKit
import GatewayWire
import GatewayWireClients
import Synchronization
import Testing

/// A TerminalClient given a ConnectionTokenProvider (Stripe's shape) against the real
/// gateway: it opens its session itself when a call first needs one, once for calls that
/// need it together, and again after the gateway ended it or the app closed it; the new
/// session has its own event stream.
@Suite("connection token provider", .timeLimit(.minutes(3)))
struct ConnectionTokenProviderTests {
    /// Mints tokens as a backend would, and counts how often it was asked.
    final class CountingProvider: ConnectionTokenProvider {
        let admin: AdminClient
        let location: String
        let fetches = Atomic<Int>(0)

        init(admin: AdminClient, location: String) {
            self.admin = admin
            self.location = location
        }

        func fetchConnectionToken() async throws -> String {
            fetches.add(1, ordering: .relaxed)
            return try await admin.createConnectionToken(locationID: location, ttl: nil).secret
        }
    }

    /// A provider whose backend is down.
    struct FailingProvider: ConnectionTokenProvider {
        struct BackendDown: Error {}
        func fetchConnectionToken() async throws -> String { throw BackendDown() }
    }

    @Test func opensASessionWhenACallNeedsOneAndAgainAfterTheGatewayEndedIt() async throws {
        let harness = try await GatewayHarness.start()
        let store = try await StoreFixture.make(harness)
        let configuration = harness.clientConfiguration
        let connection = GatewayConnection(configuration)
        let admin = AdminClient(connection: connection, secretKey: harness.account.secretKey)
        let provider = CountingProvider(admin: admin, location: store.location)
        let lane = TerminalClient(connection: connection, tokenProvider: provider, posDeviceID: "pos-1", laneLabel: "Lane 1")
        #expect(lane.session == nil)
        #expect(provider.fetches.load(ordering: .relaxed) == 0, "nothing is fetched before a call needs a session")

        // Two calls that need the session at once: one token, one session (the disconnect
        // reaches the gateway with it, and is told there is no reader yet).
        async let released: TerminalError? = { () async -> TerminalError? in
            do { try await lane.disconnectReader() } catch let error as TerminalError { return error } catch { return nil }
            return nil
        }()
        async let discovered = lane.discoverReaders(locationID: store.location)
        #expect(await released?.code == .notConnectedToReader)
        let readers = try await discovered
        #expect(provider.fetches.load(ordering: .relaxed) == 1)
        let first = try #require(lane.session)
        #expect(readers.contains { $0.id == store.readerID })

        // The gateway ends the session (here: closed with its token from elsewhere).
        var close = ReaderGatewayV1.CloseSessionRequest()
        close.sessionToken = first.resumeToken
        _ = try await store.admin.call(ReaderGatewayV1.Sdk.closeSession, close)
        var ended: TerminalError?
        for await event in lane.events {
            if case .sessionEnded(let error) = event {
                ended = error
                break
            }
        }
        #expect(ended != nil)
        #expect(lane.session == nil)

        // The next call opens a new session with a new token; its events flow.
        let again = try #require(try await lane.discoverReaders(locationID: store.location).first { $0.id == store.readerID })
        #expect(provider.fetches.load(ordering: .relaxed) == 2)
        let second = try #require(lane.session)
        #expect(second.sessionID != first.sessionID)
        try await lane.connectReader(again, failIfInUse: true)
        let other = try await store.openedLane(2, on: connection)
        let taken = try #require(try await other.discoverReaders(locationID: store.location).first { $0.id == store.readerID })
        try await other.connectReader(taken, failIfInUse: false)
        var disconnect: DisconnectInfo?
        for await event in lane.events {
            if case .disconnected(let info) = event {
                disconnect = info
                break
            }
        }
        #expect(disconnect?.reason == .replaced && disconnect?.takenByLaneLabel == "Lane 2", "\(String(describing: disconnect))")

        // Closed by the app: the next call opens a third.
        try await lane.closeSession()
        _ = try await lane.discoverReaders(locationID: store.location)
        #expect(provider.fetches.load(ordering: .relaxed) == 3)
        #expect(lane.session?.sessionID != second.sessionID)
        try await lane.closeSession()
        try await other.closeSession()
        connection.close()
        await harness.stop()
    }

    @Test func aProviderThatFailsFailsTheCallThatNeededTheSession() async throws {
        let harness = try await GatewayHarness.start()
        let configuration = harness.clientConfiguration
        let connection = GatewayConnection(configuration)
        let lane = TerminalClient(connection: connection, tokenProvider: FailingProvider(), posDeviceID: "pos-1", laneLabel: "Lane 1")
        do {
            _ = try await lane.discoverReaders(locationID: "tml_1")
            Issue.record("a call without a token succeeded")
        } catch let error as RPCError {
            #expect(error.reason == .connectionTokenInvalid)
            #expect(error.message.contains("connection token provider failed") && error.message.contains("BackendDown"), "\(error.message)")
            #expect(TerminalError(error).code == .connectionTokenProviderCompletedWithError)
        }
        #expect(lane.session == nil)
        connection.close()
        await harness.stop()
    }
}
