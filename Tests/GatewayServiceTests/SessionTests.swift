import GatewayTestKit
import GatewayService
import GatewayWire
import Testing

/// Sessions: resume keeps the reader, admins force-release, many sessions share a connection.
@Suite("sessions")
struct SessionTests {
    @Test func resumingWithinTheLeaseKeepsTheReader() async throws {
        // A lease no loaded machine outlasts between the close and the resume.
        let harness = try await GatewayHarness.start(lease: .seconds(120))
        let store = try await StoreFixture.make(harness)
        let lane = try await store.lane("Lane 1")
        try await lane.discoverAndConnect(store.readerID, location: store.location, failIfInUse: true)
        lane.channel.close()

        let channel = try await harness.channel()
        var request = ReaderGatewayV1.OpenSessionRequest()
        request.resumeToken = lane.token
        let resumed = try await channel.unary(ReaderGatewayV1.Sdk.openSession, request)
        #expect(resumed.resumed)
        #expect(resumed.sessionID == lane.sessionID)
        #expect(resumed.connectedReader?.id == store.readerID)
        var display = ReaderGatewayV1.ClearReaderDisplayRequest()
        display.sessionToken = lane.token
        _ = try await channel.unary(ReaderGatewayV1.Sdk.clearReaderDisplay, display)
        #expect(try await store.admin.ownership(of: store.readerID).owner?.sessionID == lane.sessionID)
        await harness.stop()
    }

    @Test func aSessionThatDoesNotComeBackLosesItsReaderWhenTheLeaseEnds() async throws {
        let harness = try await GatewayHarness.start(lease: .seconds(1))
        let store = try await StoreFixture.make(harness)
        let lane = try await store.lane("Lane 1")
        try await lane.discoverAndConnect(store.readerID, location: store.location, failIfInUse: true)
        lane.channel.close()
        #expect(try await eventually { try await store.admin.ownership(of: store.readerID).owner == nil })
        #expect(try await store.admin.history(of: store.readerID).first?.reason == .sessionExpired)
        let channel = try await harness.channel()
        var request = ReaderGatewayV1.OpenSessionRequest()
        request.resumeToken = lane.token
        await expectFailure(.sessionExpired) { try await channel.unary(ReaderGatewayV1.Sdk.openSession, request) }
        await harness.stop()
    }

    @Test func adminForceReleaseTellsTheOwner() async throws {
        let harness = try await GatewayHarness.start()
        let store = try await StoreFixture.make(harness)
        let lane = try await store.lane("Lane 1")
        let connected = try await lane.discoverAndConnect(store.readerID, location: store.location, failIfInUse: true)
        var request = ReaderGatewayV1.ForceReleaseReaderRequest()
        request.readerID = store.readerID
        request.expectedGeneration = connected.generation + 5
        await expectFailure(.ownershipChanged) { try await store.admin.call(TestAdmin.Admin.forceReleaseReader, request) }
        request.expectedGeneration = connected.generation
        let released = try await store.admin.call(TestAdmin.Admin.forceReleaseReader, request)
        #expect(released.releasedOwner?.laneLabel == "Lane 1")
        #expect(released.releasedOwner?.posDeviceID == "pos-Lane 1")
        #expect(released.ownership?.owner == nil)
        #expect(await lane.waitForDisconnect()?.reason == .adminReleased)
        await expectFailure(.notConnectedToReader) { try await lane.setDisplay() }
        #expect(try await store.admin.history(of: store.readerID).first?.reason == .adminReleased)
        await harness.stop()
    }

    /// A store server multiplexing its lanes: two sessions on one connection,
    /// one taking the reader from the other.
    @Test func manySessionsShareOneConnection() async throws {
        let harness = try await GatewayHarness.start()
        let store = try await StoreFixture.make(harness)
        let shared = try await harness.channel()
        let laneA = try await TestLane.open(harness, connectionToken: store.token, label: "Lane 1", channel: shared)
        let laneB = try await TestLane.open(harness, connectionToken: store.token, label: "Lane 2", channel: shared)
        try await laneA.discoverAndConnect(store.readerID, location: store.location, failIfInUse: true)
        try await laneB.discoverAndConnect(store.readerID, location: store.location, failIfInUse: false)
        await expectFailure(.readerConnectedToAnotherSession) { try await laneA.setDisplay() }
        #expect(await laneA.waitForDisconnect()?.takenByLaneLabel == "Lane 2")
        #expect(laneB.disconnects.isEmpty)
        var list = ReaderGatewayV1.ListSessionsRequest()
        list.locationID = store.location
        let sessions = try await store.admin.call(TestAdmin.Admin.listSessions, list).sessions
        #expect(Set(sessions.map(\.laneLabel)) == ["Lane 1", "Lane 2"])
        #expect(sessions.first { $0.laneLabel == "Lane 2" }?.connectedReaderID == store.readerID)
        await harness.stop()
    }
}
