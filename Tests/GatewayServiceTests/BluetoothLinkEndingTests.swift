import GatewayClient
import GatewaySimulators
import GatewayTestKit
import GatewayWire
import GatewayWireClients
import Testing

/// How a Bluetooth reader's link ends: the reason recorded when its device could not say,
/// and the status its call ends with (OK when the device ended it in order). A reader link
/// on the phone's connection, driven message by message, against a real gateway and
/// PostgreSQL.
@Suite("Bluetooth link endings", .timeLimit(.minutes(5)))
struct BluetoothLinkEndingTests {
    @Test("a link dropped without its device's ending after the gateway relayed a reboot on it is recorded as rebootRequested; without the reboot, unknown")
    func rebootRelayedIsTheReasonOfASilentEnd() async throws {
        let harness = try await GatewayHarness.start(offlineBound: BluetoothReaderTests.reconnectWindow)
        let air = SimulatedBluetoothAir()
        let phone = try await BluetoothReaderTests.lane(harness, air: air, device: "phone-raw", label: "Floor 1")
        let admin = try await harness.admin()

        // The phone's side by hand: the gateway bonds the reader and gives its credential,
        // the reader's link attaches on the phone's connection, the session connects it.
        let bonded = try await HandBondedReader.bond(serial: "STRM2-0100", to: phone)
        let readerID = bonded.readerID
        let attach = bonded.attach
        var (link, downlinks) = try await attach()
        let discovered = try await phone.client.discoverReaders(locationID: phone.location)
        try await phone.client.connectReader(try #require(discovered.first { $0.id == readerID }))

        // The reboot is relayed and answered; then the link drops with no ending sent.
        let rebooting = Task { try await phone.client.rebootReader() }
        while let downlink = try await downlinks.next() {
            guard case .command(let command)? = downlink.message else { continue }
            guard case .reboot? = command.command else { continue }
            var result = ReaderGatewayV1.CommandResult()
            result.commandID = command.commandID
            result.status = .ok
            try await link.sendResult(result)
            break
        }
        try await rebooting.value
        link.cancel()
        let endings = { try await admin.history(of: readerID).filter { $0.reason == .mobileLinkEnded } }
        #expect(await eventually { (try? await endings())?.count == 1 })
        #expect(try await endings().first?.mobileDisconnectReason == .rebootRequested)

        // The reader's next link drops the same way with no reboot asked: the reason is unknown.
        (link, downlinks) = try await attach()
        link.cancel()
        #expect(await eventually { (try? await endings())?.count == 2 })
        #expect(try await endings().map(\.mobileDisconnectReason) == [.unknown, .rebootRequested])
        phone.close()
        await harness.stop()
    }

    @Test("a link its device ends saying why ends OK, reconnecting or not; one half-closed without a word ends with READER_OFFLINE")
    func anOrderlyEndEndsTheCallOK() async throws {
        let harness = try await GatewayHarness.start(offlineBound: BluetoothReaderTests.reconnectWindow)
        let air = SimulatedBluetoothAir()
        let phone = try await BluetoothReaderTests.lane(harness, air: air, device: "phone-orderly", label: "Floor 1")
        let admin = try await harness.admin()
        let bonded = try await HandBondedReader.bond(serial: "STRM2-0200", to: phone)
        let readerID = bonded.readerID
        let attach = bonded.attach
        func ending(_ reason: ReaderGatewayV1.MobileDisconnectReason, reconnecting: Bool) -> ReaderGatewayV1.ReaderLinkEnding {
            var ending = ReaderGatewayV1.ReaderLinkEnding()
            ending.reason = reason
            ending.reconnecting = reconnecting
            return ending
        }
        let endings = { try await admin.history(of: readerID).filter { $0.reason == .mobileLinkEnded } }

        // The device loses the reader and reconnects by itself: it says so, then half-closes.
        var (link, downlinks) = try await attach()
        try await link.sendEnding(ending(.bluetoothSignalLost, reconnecting: true))
        link.finish()
        var end: RPCError?
        do { while try await downlinks.next() != nil {} } catch { end = error as? RPCError ?? RPCError(.internal, "\(error)") }
        #expect(end == nil, "the call of a link its device ended in order ended with \(end.map { "\($0.codeName) / \($0.reason): \($0.message)" } ?? "OK")")
        #expect(try await endings().first?.mobileDisconnectReason == .bluetoothSignalLost)

        // The device lets the reader go (disconnect requested, not reconnecting): OK as well.
        (link, downlinks) = try await attach()
        try await link.sendEnding(ending(.disconnectRequested, reconnecting: false))
        link.finish()
        end = nil
        do { while try await downlinks.next() != nil {} } catch { end = error as? RPCError ?? RPCError(.internal, "\(error)") }
        #expect(end == nil, "the call of a link its device ended in order ended with \(end.map { "\($0.codeName) / \($0.reason): \($0.message)" } ?? "OK")")
        #expect(try await endings().first?.mobileDisconnectReason == .disconnectRequested)

        // A link half-closed without a word: the gateway cannot tell it from a lost one.
        (link, downlinks) = try await attach()
        link.finish()
        end = nil
        do { while try await downlinks.next() != nil {} } catch { end = error as? RPCError ?? RPCError(.internal, "\(error)") }
        #expect(end?.code == .unavailable)
        #expect(end?.reason == .readerOffline)
        #expect(try await endings().first?.mobileDisconnectReason == .unknown)
        phone.close()
        await harness.stop()
    }
}

/// A Stripe M2 bonded to a phone's session by hand (`ConnectBluetoothReader`), whose link the
/// test attaches on the phone's connection message by message.
struct HandBondedReader {
    let readerID: String
    let serial: String
    let credential: String
    let phone: BluetoothReaderTests.PhoneLane

    static func bond(serial: String, to phone: BluetoothReaderTests.PhoneLane) async throws -> HandBondedReader {
        var bond = ReaderGatewayV1.ConnectBluetoothReaderRequest()
        bond.sessionToken = try #require(phone.client.session?.resumeToken)
        bond.serialNumber = serial
        bond.deviceType = .stripeM2
        bond.locationID = phone.location
        bond.softwareVersion = "2.4.0"
        let bonded = try await phone.connection.unary(ReaderGatewayV1.Sdk.connectBluetoothReader, bond)
        return HandBondedReader(readerID: try #require(bonded.reader?.id), serial: serial, credential: bonded.readerCredential, phone: phone)
    }

    /// Attaches the reader's link on the phone's connection; its downlinks from the first after the registration.
    func attach() async throws -> (ReaderLinkClient, ResponseStream<ReaderGatewayV1.ReaderDownlink>.AsyncIterator) {
        var hello = ReaderGatewayV1.ReaderHello()
        hello.serialNumber = serial
        hello.deviceType = .stripeM2
        hello.softwareVersion = "2.4.0"
        hello.readerCredential = credential
        let link = try await ReaderLinkClient.attach(on: try await phone.connection.channel(), hello: hello)
        var downlinks = link.downlinks.makeAsyncIterator()
        guard case .registration(let registration)? = try await downlinks.next()?.message else { throw RPCError(.internal, "no registration") }
        #expect(registration.registered)
        return (link, downlinks)
    }
}
