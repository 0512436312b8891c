import GatewayDomain
@testable import GatewayService
import GatewayWire
import Testing

/// DiscoverReaders with a filter and EasyConnect, the stores in memory: the one reader named
/// or nothing, what another account or location hides, bad filters, and EasyConnect under
/// ConnectReader's failIfInUse rules.
@Suite("Local rules: discovery filter and EasyConnect")
struct DiscoveryFilterRuleTests {
    /// Location `tml_a` with three readers (serials `WSC-1` …), `tml_b` with one, and a reader
    /// of another account; one session of the account.
    func fleet() async throws -> (LocalSDK, token: String) {
        let local = LocalSDK()
        local.store.addLocation("tml_a", account: LocalSDK.account)
        local.store.addLocation("tml_b", account: LocalSDK.account)
        for index in 1...3 { local.store.addReader("tmr_\(index)", account: LocalSDK.account, location: "tml_a", serial: "WSC-\(index)") }
        local.store.addReader("tmr_4", account: LocalSDK.account, location: "tml_b", serial: "WSC-4")
        local.store.addReader("tmr_theirs", account: "acct_other", location: nil, serial: "WSC-THEIRS")
        return (local, try await local.openSession())
    }

    @Test func aReaderIDAnswersThatReaderAlone() async throws {
        let (local, token) = try await fleet()
        let answer = try await local.discover(token, location: "tml_a", readerID: "tmr_2")
        #expect(answer.readers.map(\.id) == ["tmr_2"])
        #expect(answer.readers.first?.serialNumber == "WSC-2")
    }

    @Test func aSerialAnswersThatReaderAlone() async throws {
        let (local, token) = try await fleet()
        #expect(try await local.discover(token, location: "tml_a", serial: "WSC-3").readers.map(\.id) == ["tmr_3"])
        // Without a location: every location the token allows.
        #expect(try await local.discover(token, serial: "WSC-4").readers.map(\.id) == ["tmr_4"])
    }

    @Test func aFilterMatchingNothingAnswersAnEmptyList() async throws {
        let (local, token) = try await fleet()
        #expect(try await local.discover(token, location: "tml_a", readerID: "tmr_nowhere").readers.isEmpty)
        #expect(try await local.discover(token, location: "tml_a", serial: "WSC-404").readers.isEmpty)
    }

    @Test func aReaderOfAnotherLocationOrAccountReadsAsUnknown() async throws {
        let (local, token) = try await fleet()
        #expect(try await local.discover(token, location: "tml_a", readerID: "tmr_4").readers.isEmpty)
        #expect(try await local.discover(token, location: "tml_a", serial: "WSC-4").readers.isEmpty)
        #expect(try await local.discover(token, readerID: "tmr_theirs").readers.isEmpty)
        #expect(try await local.discover(token, serial: "WSC-THEIRS").readers.isEmpty)
        let error = await failure { try await local.easyConnect(token, serial: "WSC-THEIRS") }
        #expect(error?.reason == .readerNotFound)
        #expect(error?.message.contains("acct_other") == false)
    }

    @Test func aTokenLimitedToALocationFiltersThereOnly() async throws {
        let (local, _) = try await fleet()
        let limited = try await local.openSession(device: "pos-2", location: "tml_a", connection: 2)
        #expect(try await local.discover(limited, serial: "WSC-1", connection: 2).readers.map(\.id) == ["tmr_1"])
        #expect(try await local.discover(limited, serial: "WSC-4", connection: 2).readers.isEmpty)
    }

    @Test func bothFieldsSetIsAnInvalidRequest() async throws {
        let (local, token) = try await fleet()
        let error = await failure { try await local.discover(token, location: "tml_a", readerID: "tmr_1", serial: "WSC-1") }
        #expect(error?.reason == .invalidRequest)
        #expect(error?.status.code == .invalidArgument)
        #expect(error?.message.contains("names both reader_id") == true)
    }

    @Test func malformedFiltersAreInvalidRequestsSayingWhich() async throws {
        let (local, token) = try await fleet()
        let badID = await failure { try await local.discover(token, readerID: "tmr 1; DROP") }
        #expect(badID?.reason == .invalidRequest)
        #expect(badID?.message.contains("is not a reader id") == true)
        let badSerial = await failure { try await local.discover(token, serial: "wsc-1") }
        #expect(badSerial?.reason == .invalidRequest)
        #expect(badSerial?.message.contains("is not a serial number") == true)
        let easyBad = await failure { try await local.easyConnect(token, readerID: "tmr_1", serial: "WSC-1") }
        #expect(easyBad?.reason == .invalidRequest)
    }

    @Test func aFilteredDiscoverySupersedesThePreviousOne() async throws {
        let (local, token) = try await fleet()
        let whole = try await local.discover(token, location: "tml_a")
        let one = try await local.discover(token, location: "tml_a", readerID: "tmr_1")
        let stale = await failure { try await local.connect(token, reader: "tmr_2", discoveryID: whole.discoveryID) }
        #expect(stale?.reason == .staleDiscovery)
        // A reader the filtered answer did not list is stale too: it was not discovered.
        #expect(await failure { try await local.connect(token, reader: "tmr_2") }?.reason == .staleDiscovery)
        let connected = try await local.connect(token, reader: "tmr_1", discoveryID: one.discoveryID)
        #expect(connected.reader?.id == "tmr_1")
    }

    @Test func easyConnectConnectsTheReaderNamed() async throws {
        let (local, token) = try await fleet()
        let response = try await local.easyConnect(token, location: "tml_a", serial: "WSC-2")
        #expect(response.connection?.reader?.id == "tmr_2")
        #expect(response.connection?.generation == 1)
        #expect(response.connection?.replacedOtherSession == false)
        #expect(response.discoveryID == "disc_1")
        #expect(local.registry.session(token: token)?.reader == ReaderID("tmr_2"))
        #expect(local.store.ownership(of: "tmr_2")?.owner?.session == local.registry.session(token: token)?.id)
    }

    @Test func easyConnectWithoutAFilterIsAnInvalidRequest() async throws {
        let (local, token) = try await fleet()
        let error = await failure { try await local.easyConnect(token, location: "tml_a") }
        #expect(error?.reason == .invalidRequest)
        #expect(error?.message.contains("needs a filter") == true)
        #expect(local.registry.session(token: token)?.reader == nil)
    }

    @Test func easyConnectFindingNothingIsReaderNotFoundAndConnectsNothing() async throws {
        let (local, token) = try await fleet()
        let error = await failure { try await local.easyConnect(token, location: "tml_a", readerID: "tmr_4") }
        #expect(error?.reason == .readerNotFound)
        #expect(error?.status.code == .notFound)
        #expect(error?.message.contains("reader_id tmr_4") == true)
        #expect(error?.message.contains("location tml_a") == true)
        #expect(local.registry.session(token: token)?.reader == nil)
        #expect(local.store.ownership(of: "tmr_4")?.owner == nil)
    }

    @Test func easyConnectOfAnUnknownLocationIsLocationNotFound() async throws {
        let (local, token) = try await fleet()
        #expect(await failure { try await local.easyConnect(token, location: "tml_nowhere", serial: "WSC-1") }?.reason == .locationNotFound)
    }

    @Test func easyConnectWhileHoldingAnotherReaderIsAlreadyConnected() async throws {
        let (local, token) = try await fleet()
        _ = try await local.easyConnect(token, location: "tml_a", serial: "WSC-1")
        let error = await failure { try await local.easyConnect(token, location: "tml_a", serial: "WSC-2") }
        #expect(error?.reason == .alreadyConnectedToReader)
    }

    /// The four cells of 001's failIfInUse table, with EasyConnect as the incoming connection.
    @Test(arguments: [(false, false), (false, true), (true, false), (true, true)])
    func easyConnectFollowsTheFailIfInUseTable(busy: Bool, failIfInUse: Bool) async throws {
        let (local, first) = try await fleet()
        _ = try await local.easyConnect(first, location: "tml_a", readerID: "tmr_1", connection: 1)
        let second = try await local.openSession(device: "pos-2", connection: 2)
        if busy {
            let session = try #require(local.registry.session(token: first))
            let started = try await local.store.commandStarted(.collectPaymentMethod, reader: ReaderID("tmr_1"), session: session.id, generation: session.generation)
            #expect(started == .proceed)
        }
        let firstID = local.registry.session(token: first)?.id
        if busy && failIfInUse {
            let error = await failure { try await local.easyConnect(second, location: "tml_a", readerID: "tmr_1", failIfInUse: true, connection: 2) }
            #expect(error?.reason == .readerBusy)
            #expect(local.store.ownership(of: "tmr_1")?.owner?.session == firstID)
            #expect(local.registry.session(token: first)?.reader == ReaderID("tmr_1"))
        } else {
            let taken = try await local.easyConnect(second, location: "tml_a", readerID: "tmr_1", failIfInUse: failIfInUse, connection: 2)
            #expect(taken.connection?.replacedOtherSession == true)
            #expect(taken.connection?.generation == 2)
            #expect(local.registry.session(token: first)?.reader == nil)
            #expect(local.store.ownership(of: "tmr_1")?.owner?.session == local.registry.session(token: second)?.id)
        }
    }
}
