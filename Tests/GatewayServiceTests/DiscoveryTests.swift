import GatewayWire
import Testing

/// Discovery as Stripe states it for internet readers: one answer per call,
/// every reader at the location, one discovery at a time, stale readers refused.
@Suite("discoverReaders")
struct DiscoveryTests {
    @Test func oneAnswerWithEveryReaderAtTheLocationAndOneDiscoveryAtATime() async throws {
        let harness = try await GatewayHarness.start()
        let store = try await StoreFixture.make(harness)
        // A second reader, registered but never attached: listed as offline.
        _ = try await store.admin.registerSerials(["STRM26138003393"], prefix: "Back", location: store.location)
        let empty = try await store.admin.createLocation("Empty store")
        let lane = try await store.lane("Lane 1")

        let found = try await lane.discover(location: store.location)
        #expect(found.readers.count == 2)
        let online = try #require(found.readers.first { $0.id == store.readerID })
        #expect(online.networkStatus == .online)
        #expect(online.label == "Front")
        #expect(online.serialNumber == "WSC513105011295")
        #expect(online.softwareVersion == "2.30.1")
        #expect(online.deviceType == .simulatedWiseposE)
        let offline = try #require(found.readers.first { $0.serialNumber == "STRM26138003393" })
        #expect(offline.networkStatus == .offline)
        #expect(offline.label == "Back")

        // A second discovery fails until the first is cancelled.
        await expectFailure(.discoveryAlreadyInProgress) { try await lane.discover(location: store.location) }
        try await lane.cancelDiscovery()
        // Connecting to the offline reader fails with READER_OFFLINE.
        let again = try await lane.discover(location: store.location)
        await expectFailure(.readerOffline) { try await lane.connect(offline.id, discovery: again.discoveryID, failIfInUse: true) }
        try await lane.cancelDiscovery()

        // The connection token is scoped to the store's location: another location is refused.
        await expectFailure(.permissionDenied) { try await lane.discover(location: empty) }
        let unscoped = try await TestLane.open(harness, connectionToken: try await store.admin.connectionToken(), label: "Office")
        #expect(try await unscoped.discover(location: empty).readers.isEmpty)
        await harness.stop()
    }

    @Test func aReaderFromAnOlderDiscoveryIsStale() async throws {
        let harness = try await GatewayHarness.start()
        let store = try await StoreFixture.make(harness)
        let lane = try await store.lane("Lane 1")
        let older = try await lane.discover(location: store.location)
        try await lane.cancelDiscovery()
        let latest = try await lane.discover(location: store.location)
        await expectFailure(.staleDiscovery) { try await lane.connect(store.readerID, discovery: older.discoveryID, failIfInUse: true) }
        // The same reader from the latest discovery connects.
        try await lane.connect(store.readerID, discovery: latest.discoveryID, failIfInUse: true)
        // Connecting ends the discovery: a new one may start.
        _ = try await lane.discover(location: store.location)
        await harness.stop()
    }

    @Test func discoveryFloodsAreRateLimitedPerSession() async throws {
        let harness = try await GatewayHarness.start(discoveryBurst: 3)
        let store = try await StoreFixture.make(harness)
        let flooding = try await store.lane("Lane 1")
        let calm = try await store.lane("Lane 2")
        var limited: CallFailure?
        for _ in 0..<10 {
            do {
                _ = try await flooding.discover(location: store.location)
                try await flooding.cancelDiscovery()
            } catch let failure as CallFailure {
                limited = failure
                break
            }
        }
        let failure = try #require(limited, "ten discoveries in a row were all allowed")
        #expect(failure.reason == .rateLimited)
        #expect(failure.code == .resourceExhausted)
        #expect(failure.status.message.contains("retry in"))
        // Everyone else is served as usual.
        #expect(try await calm.discover(location: store.location).readers.count == 1)
        await harness.stop()
    }
}
