import GatewayDomain
@testable import GatewayService
import GatewayWire
import Testing

/// ConnectReader's local checks with the stores in memory: the request, the session's
/// discoveries, the reader it already holds, and the answer of a granted claim.
@Suite("Local rules: ConnectReader")
struct ConnectRuleTests {
    @Test func anEmptyReaderIDIsAnInvalidRequest() async throws {
        let local = LocalSDK()
        let token = try await local.openSession()
        let error = await failure { try await local.connect(token, reader: "") }
        #expect(error?.reason == .invalidRequest)
        #expect(error?.message.contains("reader_id is empty") == true)
    }

    @Test func aConnectBeforeAnyDiscoveryIsStale() async throws {
        let local = LocalSDK()
        local.location("tml_a", readers: ["tmr_1"])
        let token = try await local.openSession()
        let error = await failure { try await local.connect(token, reader: "tmr_1") }
        #expect(error?.reason == .staleDiscovery)
        #expect(error?.message.contains("has not discovered readers") == true)
    }

    @Test func aKnownReaderTheLatestAnswerDidNotListIsStale() async throws {
        let local = LocalSDK()
        local.location("tml_a", readers: ["tmr_1"])
        local.location("tml_b", readers: ["tmr_2"])
        let token = try await local.openSession()
        try await local.discover(token, location: "tml_a")
        #expect(await failure { try await local.connect(token, reader: "tmr_2") }?.reason == .staleDiscovery)
    }

    @Test func aReaderTheAccountDoesNotHaveIsNotFound() async throws {
        let local = LocalSDK()
        local.location("tml_a", readers: ["tmr_1"])
        local.store.addReader("tmr_theirs", account: "acct_other", location: nil)
        let token = try await local.openSession()
        try await local.discover(token, location: "tml_a")
        #expect(await failure { try await local.connect(token, reader: "tmr_nowhere") }?.reason == .readerNotFound)
        #expect(await failure { try await local.connect(token, reader: "tmr_theirs") }?.reason == .readerNotFound)
    }

    @Test func aDiscoveryIDThisGatewayNeverIssuedIsInvalid() async throws {
        let local = LocalSDK()
        local.location("tml_a", readers: ["tmr_1"])
        let token = try await local.openSession()
        try await local.discover(token, location: "tml_a")
        let error = await failure { try await local.connect(token, reader: "tmr_1", discoveryID: "d-1") }
        #expect(error?.reason == .invalidRequest)
        #expect(error?.message.contains("not one this gateway issued") == true)
    }

    @Test func aReaderFromASupersededDiscoveryIsStaleNamingTheNewerOne() async throws {
        let local = LocalSDK()
        local.location("tml_a", readers: ["tmr_1"])
        let token = try await local.openSession()
        let first = try await local.discover(token, location: "tml_a")
        try await local.discover(token, location: "tml_a")
        let error = await failure { try await local.connect(token, reader: "tmr_1", discoveryID: first.discoveryID) }
        #expect(error?.reason == .staleDiscovery)
        #expect(error?.message.contains("superseded") == true)
        #expect(error?.message.contains("disc_2") == true)
    }

    @Test func aDiscoveryOfAnotherSessionIsInvalid() async throws {
        let local = LocalSDK()
        local.location("tml_a", readers: ["tmr_1"])
        let token = try await local.openSession()
        try await local.discover(token, location: "tml_a")
        let error = await failure { try await local.connect(token, reader: "tmr_1", discoveryID: "disc_9") }
        #expect(error?.reason == .invalidRequest)
        #expect(error?.message.contains("not one of this session's discoveries") == true)
    }

    @Test func aGrantAnswersTheReaderAndItsGenerationAndTellsTheFleet() async throws {
        let local = LocalSDK()
        local.location("tml_a", readers: ["tmr_1"])
        let token = try await local.openSession()
        try await local.discover(token, location: "tml_a")
        let response = try await local.connect(token, reader: "tmr_1")
        #expect(response.reader?.id == "tmr_1")
        #expect(response.generation == 1)
        #expect(!response.replacedOtherSession)
        #expect(local.fleet.readers == ["tmr_1"])
        #expect(local.registry.session(token: token)?.reader == ReaderID("tmr_1"))
    }

    @Test func aSessionHoldingAnotherReaderMustDisconnectFirst() async throws {
        let local = LocalSDK()
        local.location("tml_a", readers: ["tmr_1", "tmr_2"])
        let token = try await local.openSession()
        try await local.discover(token, location: "tml_a")
        _ = try await local.connect(token, reader: "tmr_1")
        let error = await failure { try await local.connect(token, reader: "tmr_2") }
        #expect(error?.reason == .alreadyConnectedToReader)
        #expect(error?.message.contains("tmr_1") == true)
        #expect(local.follower.refreshes == [ReaderID("tmr_1")])
    }

    @Test func whenTheHeldReaderCannotBeConfirmedTheConnectIsRetryable() async throws {
        let local = LocalSDK()
        local.location("tml_a", readers: ["tmr_1", "tmr_2"])
        let token = try await local.openSession()
        try await local.discover(token, location: "tml_a")
        _ = try await local.connect(token, reader: "tmr_1")
        local.store.setUnavailable(true)
        let error = await failure { try await local.connect(token, reader: "tmr_2") }
        #expect(error?.reason == .storeUnavailable)
        #expect(error?.message.contains("tmr_1") == true)
    }

    @Test func connectingAgainToTheHeldReaderIsNoTakeover() async throws {
        let local = LocalSDK()
        local.location("tml_a", readers: ["tmr_1"])
        let token = try await local.openSession()
        try await local.discover(token, location: "tml_a")
        let first = try await local.connect(token, reader: "tmr_1")
        let again = try await local.connect(token, reader: "tmr_1")
        #expect(again.generation == first.generation)
        #expect(!again.replacedOtherSession)
    }

    @Test func anOfflineReaderIsRefusedAsOffline() async throws {
        let local = LocalSDK()
        local.store.addLocation("tml_a", account: LocalSDK.account)
        local.store.addReader("tmr_off", account: LocalSDK.account, location: "tml_a", online: false)
        let token = try await local.openSession()
        try await local.discover(token, location: "tml_a")
        #expect(await failure { try await local.connect(token, reader: "tmr_off") }?.reason == .readerOffline)
    }

    @Test func aBluetoothReaderBondedElsewhereIsRefusedAsPairedWithAnotherDevice() async throws {
        let local = LocalSDK()
        local.location("tml_a", readers: ["tmr_1"])
        local.store.addReader("tmr_bt", account: LocalSDK.account, location: "tml_a", deviceType: .bbposWisepad3)
        local.store.bond("tmr_bt", to: "pos-other")
        let token = try await local.openSession(device: "pos-1")
        try await local.discover(token, location: "tml_a")
        #expect(await failure { try await local.connect(token, reader: "tmr_bt") }?.reason == .bluetoothAlreadyPairedWithAnotherDevice)
    }
}
