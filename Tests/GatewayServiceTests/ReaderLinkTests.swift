import GatewayWire
import Testing

/// The reader's link: loss detection within the offline bound, and a second
/// attach from the same reader.
@Suite("reader link")
struct ReaderLinkTests {
    @Test func aSilentReaderIsOfflineAndItsOwnerIsTold() async throws {
        let bound = Duration.milliseconds(1500)
        let harness = try await GatewayHarness.start(offlineBound: bound)
        let store = try await StoreFixture.make(harness)
        let lane = try await store.lane("Lane 1")
        try await lane.discoverAndConnect(store.readerID, location: store.location, failIfInUse: true)

        // The reader stops heartbeating but keeps its TCP connection open.
        store.reader.goSilent()
        // Outcomes only: when the gateway decides depends on when its last heartbeat arrived,
        // which a loaded machine moves; how soon after the bound it notices is a timing figure.
        let event = try #require(await lane.waitForDisconnect(), "the owner was not told")
        #expect(event.reason == .readerLost)
        #expect(event.readerID == store.readerID)
        #expect(await store.reader.waitUntilEnded()?.reason == .readerOffline)

        let ownership = try await store.admin.ownership(of: store.readerID)
        #expect(ownership.owner == nil)
        #expect(ownership.networkStatus == .offline)
        #expect(try await store.admin.history(of: store.readerID).first?.reason == .readerLost)
        // The next command says why; later ones, that there is no reader.
        await expectFailure(.readerOffline) { try await lane.setDisplay() }
        await expectFailure(.notConnectedToReader) { try await lane.setDisplay() }
        await harness.stop()
    }

    @Test func aReaderAttachingTwiceReplacesItsOlderLinkAndTheOwnerKeepsIt() async throws {
        let harness = try await GatewayHarness.start()
        let store = try await StoreFixture.make(harness)
        let lane = try await store.lane("Lane 1")
        let connected = try await lane.discoverAndConnect(store.readerID, location: store.location, failIfInUse: true)

        let second = try await TestReader.attach(harness, serial: store.reader.serial, certificate: try harness.readerCertificate(serial: store.reader.serial))
        #expect(await second.waitUntilRegistered()?.readerID == store.readerID)
        #expect(await store.reader.waitUntilEnded()?.reason == .readerLinkReplaced)

        // The owner keeps the reader; its commands now reach the new link.
        let ownership = try await store.admin.ownership(of: store.readerID)
        #expect(ownership.owner?.sessionID == lane.sessionID)
        #expect(ownership.generation == connected.generation)
        try await lane.setDisplay()
        #expect(second.commands.contains { if case .setDisplay? = $0.command { true } else { false } })
        #expect(lane.disconnects.isEmpty)
        await harness.stop()
    }

    @Test func aReaderThatDoesNotAnswerTimesOutAndIsNoLongerInUse() async throws {
        let harness = try await GatewayHarness.start(commandTimeout: .milliseconds(800))
        let store = try await StoreFixture.make(harness)
        let lane = try await store.lane("Lane 1")
        try await lane.discoverAndConnect(store.readerID, location: store.location, failIfInUse: true)
        // The simulated reader holds the collect and never answers it.
        await expectFailure(.readerTimeout) { try await lane.collect() }
        #expect(store.reader.isHoldingCollect)
        #expect(try await store.admin.ownership(of: store.readerID).inTransaction == false)
        await harness.stop()
    }

    @Test func rebootDisconnectsTheOwnerWithRebootRequested() async throws {
        let harness = try await GatewayHarness.start()
        let store = try await StoreFixture.make(harness)
        let lane = try await store.lane("Lane 1")
        try await lane.discoverAndConnect(store.readerID, location: store.location, failIfInUse: true)
        var request = ReaderGatewayV1.RebootReaderRequest()
        request.sessionToken = lane.token
        _ = try await lane.channel.unary(ReaderGatewayV1.Sdk.rebootReader, request)
        #expect(await lane.waitForDisconnect()?.reason == .rebootRequested)
        await harness.stop()
    }
}
