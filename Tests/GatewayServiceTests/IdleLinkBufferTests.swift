import GatewayTestKit
import Foundation
import GatewayWire
import Testing

/// A reader's link and a lane's connection that went quiet release their TLS record buffers
/// and the link's own buffers, and the next messages take them again: commands still go from
/// the lane to the reader and back. The idle clock is the sweep's (an hour's threshold, so
/// the sweep's own timer never runs during the test).
@Suite("idle links release their buffers")
struct IdleLinkBufferTests {
    @Test func quietLinksReleaseTheirBuffersAndCommandsStillFlowBothWays() async throws {
        let threshold = Duration.seconds(3600)
        let harness = try await GatewayHarness.start(releaseBuffersAfter: threshold)
        let admin = try await harness.admin()
        let location = try await admin.createLocation("Idle")
        let registered = try await admin.registerSerials(["WSCIDLE00001"], prefix: "Idle", location: location)
        let reader = try await TestReader.attach(harness, serial: "WSCIDLE00001", certificate: try harness.readerCertificate(serial: "WSCIDLE00001"))
        #expect(await reader.waitUntilRegistered() != nil)
        let token = try await admin.connectionToken(location: location)
        let lane = try await TestLane.open(harness, connectionToken: token, label: "Lane 1")
        _ = try await lane.discoverAndConnect(registered[0].id, location: location, failIfInUse: true)
        try await lane.setDisplay()

        // Quiet, but not for the threshold: nothing released.
        try await harness.sweepIdleBuffers(asIfQuietFor: threshold - .seconds(600))
        #expect(harness.buffersReleasedCount == 0)

        // Past it: the reader's link and the lane's connection (at least) release theirs.
        try await harness.sweepIdleBuffers(asIfQuietFor: threshold + .seconds(1))
        let first = harness.buffersReleasedCount
        #expect(first >= 2, "released: \(first)")

        // The next messages take them again, both ways: lane → gateway → reader and back.
        try await lane.setDisplay()
        try await harness.sweepIdleBuffers(asIfQuietFor: threshold + .seconds(1))
        let second = harness.buffersReleasedCount
        #expect(second >= first + 2, "released: \(first), then \(second)")
        try await lane.setDisplay()
        let displays = reader.commands.filter { if case .setDisplay? = $0.command { true } else { false } }
        #expect(displays.count == 3)
        await harness.stop()
    }
}
