import GatewayDomain
@testable import GatewayService
import GatewayWire
import Testing

/// Two lanes and one reader, the stores in memory: failIfInUse, takeovers and what the
/// displaced session hears, DisconnectReader.
@Suite("Local rules: ownership between sessions")
struct OwnershipRuleTests {
    /// Two sessions on two connections that discovered `tmr_1`; the first holds it.
    func twoLanes() async throws -> (LocalSDK, first: String, second: String) {
        let local = LocalSDK()
        local.location("tml_a", readers: ["tmr_1"])
        let first = try await local.openSession(device: "pos-1", connection: 1)
        let second = try await local.openSession(device: "pos-2", connection: 2)
        try await local.discover(first, location: "tml_a", connection: 1)
        try await local.discover(second, location: "tml_a", connection: 2)
        _ = try await local.connect(first, reader: "tmr_1", connection: 1)
        return (local, first, second)
    }

    /// The first lane's payment collection is running on the reader.
    func collecting(_ local: LocalSDK, _ token: String) async throws {
        let session = try #require(local.registry.session(token: token))
        let started = try await local.store.commandStarted(.collectPaymentMethod, reader: ReaderID("tmr_1"), session: session.id, generation: session.generation)
        #expect(started == .proceed)
    }

    @Test func failIfInUseIsRefusedWhileAnotherSessionCollects() async throws {
        let (local, first, second) = try await twoLanes()
        try await collecting(local, first)
        let error = await failure { try await local.connect(second, reader: "tmr_1", failIfInUse: true, connection: 2) }
        #expect(error?.reason == .readerBusy)
        #expect(local.store.ownership(of: "tmr_1")?.owner?.session == local.registry.session(token: first)?.id)
    }

    @Test func failIfInUseTakesAnIdleReader() async throws {
        let (local, _, second) = try await twoLanes()
        let response = try await local.connect(second, reader: "tmr_1", failIfInUse: true, connection: 2)
        #expect(response.replacedOtherSession)
        #expect(response.generation == 2)
    }

    @Test func withoutFailIfInUseAConnectTakesTheReaderMidTransaction() async throws {
        let (local, first, second) = try await twoLanes()
        try await collecting(local, first)
        let response = try await local.connect(second, reader: "tmr_1", failIfInUse: false, connection: 2)
        #expect(response.replacedOtherSession)
        #expect(local.store.ownership(of: "tmr_1")?.commandInProgress == nil)
    }

    @Test func theDisplacedSessionLosesItsReader() async throws {
        let (local, first, second) = try await twoLanes()
        _ = try await local.connect(second, reader: "tmr_1", connection: 2)
        #expect(local.registry.session(token: first)?.reader == nil)
        #expect(local.registry.session(token: second)?.reader == ReaderID("tmr_1"))
    }

    @Test func theDisplacedSessionsNextDisconnectIsRefusedOnce() async throws {
        let (local, first, second) = try await twoLanes()
        _ = try await local.connect(second, reader: "tmr_1", connection: 2)
        let refused = await failure { try await local.disconnect(first, connection: 1) }
        #expect(refused?.reason == .readerConnectedToAnotherSession)
        #expect(await failure { try await local.disconnect(first, connection: 1) }?.reason == .notConnectedToReader)
    }

    @Test func aDisconnectWithoutAReaderIsNotConnected() async throws {
        let local = LocalSDK()
        let token = try await local.openSession()
        let error = await failure { try await local.disconnect(token) }
        #expect(error?.reason == .notConnectedToReader)
        #expect(error?.message.contains("discover readers and connect one first") == true)
    }

    @Test func aDisconnectFreesTheReaderForAFailIfInUseConnect() async throws {
        let (local, first, second) = try await twoLanes()
        try await local.disconnect(first, connection: 1)
        #expect(local.store.ownership(of: "tmr_1")?.owner == nil)
        let response = try await local.connect(second, reader: "tmr_1", failIfInUse: true, connection: 2)
        #expect(!response.replacedOtherSession)
    }
}
