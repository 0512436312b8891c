import Foundation
import GatewayService
import GatewayWire
import Testing

/// Accounts are isolated, and bad input gets a precise error while the gateway
/// keeps serving everyone else.
@Suite("isolation and bad input")
struct IsolationAndBadInputTests {
    @Test func anotherAccountCannotSeeDiscoverConnectOrRelease() async throws {
        let harness = try await GatewayHarness.start()
        let store = try await StoreFixture.make(harness)
        let other = try await DevelopmentAccount.create(name: "other", client: harness.database.client)
        let adminB = try await harness.admin(secretKey: other.secretKey)

        // Foreign ids are answered exactly like unknown ones.
        var get = ReaderGatewayV1.GetReaderRequest()
        get.readerID = store.readerID
        var foreign: CallFailure?
        do { _ = try await adminB.call(TestAdmin.Admin.getReader, get) } catch let failure as CallFailure { foreign = failure }
        get.readerID = "tmr_doesnotexist00"
        var unknown: CallFailure?
        do { _ = try await adminB.call(TestAdmin.Admin.getReader, get) } catch let failure as CallFailure { unknown = failure }
        #expect(foreign?.reason == .readerNotFound)
        #expect(foreign?.status == unknown?.status)

        #expect(try await adminB.call(TestAdmin.Admin.listReaders, .init()).readers.isEmpty)
        #expect(try await adminB.call(TestAdmin.Admin.listReaderOwnership, .init()).ownerships.isEmpty)
        var ownership = ReaderGatewayV1.ListReaderOwnershipRequest()
        ownership.locationID = store.location
        await expectFailure(.locationNotFound) { try await adminB.call(TestAdmin.Admin.listReaderOwnership, ownership) }
        var history = ReaderGatewayV1.ListOwnershipHistoryRequest()
        history.readerID = store.readerID
        await expectFailure(.readerNotFound) { try await adminB.call(TestAdmin.Admin.listOwnershipHistory, history) }
        var release = ReaderGatewayV1.ForceReleaseReaderRequest()
        release.readerID = store.readerID
        await expectFailure(.readerNotFound) { try await adminB.call(TestAdmin.Admin.forceReleaseReader, release) }
        var token = ReaderGatewayV1.CreateConnectionTokenRequest()
        token.locationID = store.location
        await expectFailure(.locationNotFound) { try await adminB.call(TestAdmin.Admin.createConnectionToken, token) }

        // A lane of account B cannot discover or connect to account A's reader.
        let laneB = try await TestLane.open(harness, connectionToken: try await adminB.connectionToken(), label: "Intruder")
        await expectFailure(.locationNotFound) { try await laneB.discover(location: store.location) }
        let own = try await laneB.discover()
        #expect(own.readers.isEmpty)
        await expectFailure(.readerNotFound) { try await laneB.connect(store.readerID, discovery: own.discoveryID, failIfInUse: false) }
        #expect(try await store.admin.ownership(of: store.readerID).owner == nil)
        await harness.stop()
    }

    @Test func badTokensKeysIdsAndMethods() async throws {
        let harness = try await GatewayHarness.start()
        let store = try await StoreFixture.make(harness)
        let channel = try await harness.channel()
        var open = ReaderGatewayV1.OpenSessionRequest()
        open.posDeviceID = "pos-x"
        open.connectionToken = "pst_unknown"
        await expectFailure(.connectionTokenInvalid) { try await channel.unary(ReaderGatewayV1.Sdk.openSession, open) }
        open.connectionToken = try await store.admin.connectionToken(ttlMs: 1)
        try await Task.sleep(for: .milliseconds(20))
        await expectFailure(.connectionTokenExpired) { try await channel.unary(ReaderGatewayV1.Sdk.openSession, open) }
        open.connectionToken = ""
        open.resumeToken = "st_unknown"
        await expectFailure(.sessionExpired) { try await channel.unary(ReaderGatewayV1.Sdk.openSession, open) }

        var discover = ReaderGatewayV1.DiscoverReadersRequest()
        discover.sessionToken = "st_unknown"
        await expectFailure(.sessionExpired) { try await channel.unary(ReaderGatewayV1.Sdk.discoverReaders, discover) }

        let wrongKey = try await harness.admin(secretKey: "sk_wrong")
        await expectFailure(.secretKeyInvalid) { try await wrongKey.createLocation("nope") }
        await expectFailure(.secretKeyInvalid) { try await channel.unary(TestAdmin.Admin.listLocations, .init()) }

        let lane = try await store.lane("Lane 1")
        // A token scoped to one location refuses any other id, known or not.
        await expectFailure(.permissionDenied) { try await lane.discover(location: "tml_unknown") }
        let unscoped = try await TestLane.open(harness, connectionToken: try await store.admin.connectionToken(), label: "Office")
        await expectFailure(.locationNotFound) { try await unscoped.discover(location: "tml_unknown") }
        let found = try await lane.discover(location: store.location)
        await expectFailure(.readerNotFound) { try await lane.connect("tmr_unknown", discovery: found.discoveryID, failIfInUse: true) }
        // Commands without a connected reader.
        await expectFailure(.notConnectedToReader) { try await lane.setDisplay() }
        await expectFailure(.notConnectedToReader) { try await lane.collect() }
        await expectFailure(.notConnectedToReader) { try await lane.disconnect() }

        // An unknown method path ends that call only.
        let (id, events) = try channel.start("/readergateway.v1.Sdk/NoSuchMethod")
        try? channel.send(ReaderGatewayV1.CloseSessionRequest(), on: id)
        var status: ReaderGatewayV1.Status?
        for await event in events { if case .ended(let ended) = event { status = ended } }
        #expect(status?.reason == .methodNotFound)
        #expect(status?.code == .unimplemented)
        // The gateway keeps serving on the same connection.
        var list = ReaderGatewayV1.ListLocationsRequest()
        list.limit = 10
        #expect(try await channel.unary(TestAdmin.Admin.listLocations, list, metadata: bearer(harness.account.secretKey)).locations.count == 1)
        await harness.stop()
    }
}
