import GatewayTestKit
import GatewayWire
import Testing

/// The ownership history as `ListOwnershipHistory` answers it: each row says what was true
/// when it was written, whatever became of the sessions it names.
@Suite("ownership history")
struct OwnershipHistoryTests {
    /// One history entry as an admin reads it: what happened, and the POS device and lane of
    /// the session that acted and of the one that lost the reader.
    struct Row: Hashable, CustomStringConvertible {
        var reason: ReaderGatewayV1.OwnershipChangeReason
        var device: String
        var lane: String
        var previousDevice: String
        var previousLane: String

        init(_ reason: ReaderGatewayV1.OwnershipChangeReason, _ device: String, _ lane: String, previous: (String, String) = ("", "")) {
            self.reason = reason
            self.device = device
            self.lane = lane
            (previousDevice, previousLane) = previous
        }

        init(_ entry: ReaderGatewayV1.OwnershipHistoryEntry) {
            self.init(
                entry.reason, entry.session?.posDeviceID ?? "", entry.session?.laneLabel ?? "",
                previous: (entry.previousOwner?.posDeviceID ?? "", entry.previousOwner?.laneLabel ?? "")
            )
        }

        var description: String { "\(reason.rawValue) \(device)/\(lane) from \(previousDevice)/\(previousLane)" }
    }

    @Test("a session takes a reader from another and lets it go; once both sessions closed, the history still names their POS devices")
    func historyKeepsThePOSDevicesOfClosedSessions() async throws {
        let harness = try await GatewayHarness.start()
        let store = try await StoreFixture.make(harness)
        let first = try await store.lane("Lane 1")
        let second = try await store.lane("Lane 2")
        try await first.discoverAndConnect(store.readerID, location: store.location, failIfInUse: true)
        try await second.discoverAndConnect(store.readerID, location: store.location, failIfInUse: false)
        #expect(await first.waitForDisconnect()?.reason == .replaced)
        try await second.disconnect()

        let expected = [
            Row(.released, "pos-Lane 2", "Lane 2"),
            Row(.replaced, "pos-Lane 2", "Lane 2", previous: ("pos-Lane 1", "Lane 1")),
            Row(.connected, "pos-Lane 1", "Lane 1"),
        ]
        #expect(try await store.admin.history(of: store.readerID).map(Row.init) == expected)

        for lane in [first, second] {
            var close = ReaderGatewayV1.CloseSessionRequest()
            close.sessionToken = lane.token
            _ = try await lane.channel.unary(ReaderGatewayV1.Sdk.closeSession, close)
        }
        #expect(try await store.admin.history(of: store.readerID).map(Row.init) == expected)
        await harness.stop()
    }
}
