import GatewayTestKit
import GatewayWire
import Testing

/// The hand-over of an online reader link from the Attach call's task to the connection's
/// loop: what the reader sent while the gateway was still taking it online is read from the
/// call's request stream to its end (the stream finishes when the loop takes over), and the
/// link's end is seen whether it came before or after the hand-over. The harness's offline
/// bound is far beyond the tests' length: a reader that went offline here ended by its own
/// half-close or close, never by its silence.
@Suite("reader link hand-over")
struct ReaderLinkHandOverTests {
    @Test func aHeartbeatSentRightBehindTheHelloIsApplied() async throws {
        let harness = try await GatewayHarness.start()
        let (admin, readerID, serial) = try await Self.registeredReader(harness)
        let channel = try await harness.channel(certificate: try harness.readerCertificate(serial: serial))
        let (id, events) = try channel.start(ReaderGatewayV1.ReaderLink.attach.path)
        // Both leave in one flush, before the gateway has looked the reader up: the heartbeat
        // waits in the request stream while the reader is taken online.
        try channel.send(Self.hello(serial), on: id)
        try channel.send(Self.heartbeat(ipAddress: "10.0.0.42", batteryLevel: 0.42), on: id)
        #expect(await Self.registration(in: events), "the reader did not go online")

        let reader = try #require(await Self.waitForReader(admin, readerID) { $0.ipAddress == "10.0.0.42" }, "the heartbeat was not applied")
        #expect(reader.networkStatus == .online)
        #expect(reader.batteryLevel.map { abs($0 - 0.42) < 0.001 } == true, "\(reader)")
        channel.close()
        #expect(await Self.waitForReader(admin, readerID) { $0.networkStatus == .offline } != nil, "the reader stayed online")
        await harness.stop()
    }

    @Test func aReaderThatHalfClosesRightBehindItsHelloEndsOffline() async throws {
        let harness = try await GatewayHarness.start()
        let (admin, readerID, serial) = try await Self.registeredReader(harness)
        let channel = try await harness.channel(certificate: try harness.readerCertificate(serial: serial))
        let (id, events) = try channel.start(ReaderGatewayV1.ReaderLink.attach.path)
        // The requests end before the link goes online: the hand-over finds them ended and the
        // link ends at once, after going online.
        try channel.send(Self.hello(serial), on: id)
        try channel.halfClose(id)
        #expect(await Self.registration(in: events), "the reader did not go online")
        #expect(await Self.waitForReader(admin, readerID) { $0.networkStatus == .offline } != nil, "the reader stayed online")
        #expect(try await admin.ownership(of: readerID).networkStatus == .offline)
        channel.close()
        await harness.stop()
    }

    @Test func aReaderThatHalfClosesOnceOnlineEndsOffline() async throws {
        let harness = try await GatewayHarness.start()
        let (admin, readerID, serial) = try await Self.registeredReader(harness)
        let channel = try await harness.channel(certificate: try harness.readerCertificate(serial: serial))
        let (id, events) = try channel.start(ReaderGatewayV1.ReaderLink.attach.path)
        try channel.send(Self.hello(serial), on: id)
        #expect(await Self.registration(in: events), "the reader did not go online")
        try channel.send(Self.heartbeat(ipAddress: "10.0.0.43", batteryLevel: 0.5), on: id)
        #expect(await Self.waitForReader(admin, readerID) { $0.ipAddress == "10.0.0.43" } != nil, "the heartbeat was not applied")
        try channel.halfClose(id)
        #expect(await Self.waitForReader(admin, readerID) { $0.networkStatus == .offline } != nil, "the reader stayed online")
        channel.close()
        await harness.stop()
    }

    // MARK: helpers

    static func registeredReader(_ harness: GatewayHarness) async throws -> (TestAdmin, String, String) {
        let serial = "WSC513105011297"
        let admin = try await harness.admin()
        let location = try await admin.createLocation("Main street")
        let registered = try await admin.registerSerials([serial], prefix: "Front", location: location)
        return (admin, try #require(registered.first?.id), serial)
    }

    static func hello(_ serial: String) -> ReaderGatewayV1.ReaderUplink {
        var hello = ReaderGatewayV1.ReaderHello()
        hello.serialNumber = serial
        hello.deviceType = .simulatedWiseposE
        hello.softwareVersion = "2.30.1"
        hello.ipAddress = "10.0.0.7"
        var uplink = ReaderGatewayV1.ReaderUplink()
        uplink.message = .hello(hello)
        return uplink
    }

    static func heartbeat(ipAddress: String, batteryLevel: Float) -> ReaderGatewayV1.ReaderUplink {
        var heartbeat = ReaderGatewayV1.ReaderHeartbeat()
        heartbeat.activity = .idle
        heartbeat.batteryLevel = batteryLevel
        heartbeat.ipAddress = ipAddress
        var uplink = ReaderGatewayV1.ReaderUplink()
        uplink.message = .heartbeat(heartbeat)
        return uplink
    }

    /// Whether the gateway's registration message (sent once the link is online) arrives.
    static func registration(in events: AsyncStream<CallEvent>) async -> Bool {
        for await event in events {
            guard case .message(let bytes) = event else { return false }
            if case .registration(let state)? = (try? ReaderGatewayV1.ReaderDownlink(serializedBytes: bytes))?.message, state.registered { return true }
        }
        return false
    }

    /// The reader as the admin surface shows it, once `condition` holds (nil: it never did).
    static func waitForReader(
        _ admin: TestAdmin, _ readerID: String, _ condition: @escaping (ReaderGatewayV1.Reader) -> Bool
    ) async -> ReaderGatewayV1.Reader? {
        var request = ReaderGatewayV1.GetReaderRequest()
        request.readerID = readerID
        var found: ReaderGatewayV1.Reader?
        _ = await eventually {
            found = try? await admin.call(ReaderGatewayV1.FleetAdmin.getReader, request).reader
            return found.map(condition) ?? false
        }
        return found.flatMap { condition($0) ? $0 : nil }
    }
}
