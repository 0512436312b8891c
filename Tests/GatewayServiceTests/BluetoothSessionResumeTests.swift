import Foundation
import GatewayClient
import GatewaySimulators
import GatewayTestKit
import GatewayWire
import Synchronization
import Testing

/// A Bluetooth reader stays connected to its phone over Bluetooth while the phone's own
/// connection to the gateway is cut (a proxy in front of the gateway): the session resumes,
/// on the same replica or another, the reader's link attaches again, the owner is kept, and
/// payments go on.
@Suite("Bluetooth links after a session resume", .timeLimit(.minutes(5)))
struct BluetoothSessionResumeTests {
    static func lane(_ harness: GatewayHarness, port: Int, air: SimulatedBluetoothAir) async throws -> (BluetoothReaderTests.PhoneLane, TapToPayTests.EventLog) {
        let admin = try await harness.admin()
        let location = try await admin.createLocation("Shop of Floor 1")
        let token = try await admin.connectionToken()
        let configuration = ClientChannelConfiguration(host: "127.0.0.1", port: port, serverName: "localhost", trustedCAPath: harness.caPath)
        let connection = GatewayConnection(configuration)
        let client = TerminalClient(connection: connection)
        let log = TapToPayTests.EventLog(client)
        _ = try await client.openSession(connectionToken: token, posDeviceID: "phone-a", laneLabel: "Floor 1")
        return (BluetoothReaderTests.PhoneLane(client: client, connection: connection, radio: SimulatedRadio(air: air, deviceID: "phone-a"), location: location), log)
    }

    static func resumes(_ log: TapToPayTests.EventLog) -> Int {
        log.count { if case .sessionResumed = $0 { true } else { false } }
    }

    /// Cuts the phone's connection (after pointing the proxy at `redirect`, if given) and
    /// checks that the owner is kept, the reader is online again and a payment works.
    static func cutAndPay(redirect: Int?) async throws {
        let harness = try await GatewayHarness.start(offlineBound: BluetoothReaderTests.reconnectWindow)
        let replica = redirect == nil ? nil : try await TapToPayTests.secondReplica(harness)
        let proxy = try CuttableProxy(upstreamPort: harness.port)
        let air = SimulatedBluetoothAir()
        air.addReader(serialNumber: "STRM2-0001", deviceType: .stripeM2, tapAutomatically: .init())
        let (phone, log) = try await Self.lane(harness, port: proxy.port, air: air)
        let connected = try await phone.client.connectBluetoothReader(
            try await BluetoothReaderTests.discover("STRM2-0001", phone), radio: phone.radio, BluetoothConnectionConfiguration(locationID: phone.location)
        )
        let readerEvents = BluetoothReaderTests.MobileEventLog(connected)
        let admin = try await harness.admin()
        let readerID = connected.reader.id
        let before = try await admin.ownership(of: readerID)
        #expect(try await phone.client.collectPaymentMethod(BluetoothReaderTests.collectParams("pi_before_cut", amount: 100)).paymentMethod != nil)

        if let replica { proxy.redirect(to: replica.1) }
        proxy.cut()
        #expect(await eventually { Self.resumes(log) == 1 })
        // Whether a reader is online is what the replica holding its link knows: ask that one.
        let home = replica == nil
            ? admin
            : TestAdmin(
                channel: try await TestChannel.connect(port: replica!.1, caPath: harness.caPath, certificate: nil, loop: harness.loops.next()),
                secretKey: harness.account.secretKey
            )
        var seen: ReaderGatewayV1.ReaderOwnership?
        let back = await eventually {
            seen = try? await home.ownership(of: readerID)
            return seen?.networkStatus == .online && seen?.owner?.laneLabel == "Floor 1"
        }
        let changes = (try? await admin.history(of: readerID))?.map { ($0.reason, $0.generation) } ?? []
        #expect(back, "\(String(describing: seen)); history: \(changes)")
        let after = try await home.ownership(of: readerID)
        #expect(after.generation == before.generation)
        let collected = try await phone.client.collectPaymentMethod(BluetoothReaderTests.collectParams("pi_after_cut", amount: 500))
        #expect(collected.paymentMethod?.last4 == "4242")
        var confirm = ReaderGatewayV1.ConfirmPaymentIntentParams()
        confirm.paymentIntentID = "pi_after_cut"
        #expect(try await phone.client.confirmPaymentIntent(confirm).amountReceived == 500)
        // Over Bluetooth nothing happened: no reconnect, no disconnect; the owner never changed.
        #expect(readerEvents.all.isEmpty, "\(readerEvents.all)")
        #expect(log.count(where: TapToPayTests.isDisconnected) == 0)
        let history = try await admin.history(of: readerID)
        #expect(!history.contains { $0.reason == .released || $0.reason == .readerLost }, "\(history.map(\.reason))")
        try await connected.disconnect()
        readerEvents.task.cancel()
        log.task.cancel()
        phone.close()
        proxy.stop()
        if let replica { try await replica.0.stop() }
        await harness.stop()
    }

    @Test("the phone's connection is cut: the session resumes on the same replica, the reader's link attaches again, owner kept, a payment works")
    func sameReplica() async throws {
        try await Self.cutAndPay(redirect: nil)
    }

    @Test("the phone's connection is cut and it comes back through another replica: the reader's link attaches there, owner kept, a payment works")
    func anotherReplica() async throws {
        try await Self.cutAndPay(redirect: 0)
    }
}
