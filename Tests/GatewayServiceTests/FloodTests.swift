import Foundation
import GatewayTestSupport
import GatewayWire
import Testing

/// A slowloris flood against the gateway's TLS port (loopback only, bounded in count and time):
/// `transport-flood`, a real process, holds 5,000 silent and 2,000 half-hello sockets open from
/// ten source addresses (127.0.0.2 … 127.0.0.11), re-opening each one the gateway closes. The
/// lanes come from 127.0.0.1.
@Suite("floods")
struct FloodTests {
    @Test("during a flood of 7,000 silent and half-hello sockets a new lane gets in and existing sessions keep working")
    func newLanesGetInDuringAFlood() async throws {
        let harness = try await GatewayHarness.start()
        let store = try await StoreFixture.make(harness)
        let before = try await store.lane("Lane 1")
        try await before.discoverAndConnect(store.readerID, location: store.location, failIfInUse: true)

        let flood = try await LoggedProcess.start(
            PackageExecutables.path("transport-flood"),
            ["--port", String(harness.port), "--silent", "5000", "--partial", "2000", "--sources", "10",
             "--first-source", "127.0.0.2", "--reopen-per-second", "2000", "--seconds", "300"],
            logPath: harness.directory + "/flood.log"
        )
        // Every one of the 7,000 sockets has been connected (the gateway closes some of them as
        // fast as they come: at most 64 per source may be in their handshake at once).
        let ready = await flood.waitForLine(containing: "ready ", timeout: .seconds(120))
        #expect(ready != nil, "the flood never got all its sockets connected: \(flood.tail(5))")

        // A new lane: TLS, OpenSession, discovery and a connect, all served during the flood.
        let during = try await store.lane("Lane 2")
        try await during.discoverAndConnect(store.readerID, location: store.location, failIfInUse: false)
        try await during.setDisplay()
        // The lane that was there before heard of the takeover and is still served.
        #expect(await before.waitForDisconnect()?.takenByLaneLabel == "Lane 2")
        try await before.discoverAndConnect(store.readerID, location: store.location, failIfInUse: false)
        try await before.setDisplay()
        // The flood is still going, and the gateway has been closing its sockets.
        let stats = await flood.waitForLine(containing: "stats ", timeout: .seconds(30))
        #expect(stats != nil)
        #expect(flood.process.poll() == nil, "the flood ended early: \(flood.tail(5))")

        #expect(await flood.stop() == 0)
        let done = try #require(flood.output.split(separator: "\n").last { $0.hasPrefix("done ") }.map(String.init))
        #expect(Int(LoggedProcess.field("closed_by_server", in: done) ?? "") ?? 0 > 0, "\(done)")
        await harness.stop()
    }
}
