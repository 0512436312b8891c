import Foundation
import GatewayClient
import GatewaySimulators
import GatewayTestKit
import GatewayWire
import GatewayWireClients
import Synchronization
import Testing

/// Bluetooth readers through the client library and a simulated radio against a real gateway:
/// discovery, WisePad 3 pairing, connect with a location, the bond to one device, payments,
/// disconnect reasons in the history, auto-reconnect with the owner kept, reboot and the
/// 24-hour security reboot, reconnect on app start.
@Suite("Bluetooth readers", .timeLimit(.minutes(5)))
struct BluetoothReaderTests {
    /// The gateway's offline bound here: how long it keeps a reconnecting reader's owner. Long,
    /// so that the window outlasts the slowest reconnect of a loaded machine (the release when
    /// it passes is the drained-replica path, tested in the cluster suites).
    static let reconnectWindow = Duration.seconds(300)

    /// One phone lane: its client, its radio in the shared air, and a location.
    struct PhoneLane {
        let client: TerminalClient
        let connection: GatewayConnection
        let radio: SimulatedRadio
        let location: String

        func close() { connection.close() }
    }

    static func lane(_ harness: GatewayHarness, air: SimulatedBluetoothAir, device: String, label: String, location: String? = nil) async throws -> PhoneLane {
        let admin = try await harness.admin()
        var place = location ?? ""
        if location == nil { place = try await admin.createLocation("Shop of \(label)") }
        let token = try await admin.connectionToken()
        let configuration = harness.clientConfiguration
        let connection = GatewayConnection(configuration)
        let client = TerminalClient(connection: connection)
        _ = try await client.openSession(connectionToken: token, posDeviceID: device, laneLabel: label)
        return PhoneLane(client: client, connection: connection, radio: SimulatedRadio(air: air, deviceID: device), location: place)
    }

    /// Collects a Bluetooth reader's events as they come.
    final class MobileEventLog: Sendable {
        final class Storage: Sendable {
            let events = Mutex<[MobileReaderEvent]>([])
        }
        let storage = Storage()
        let task: Task<Void, Never>

        init(_ connection: BluetoothReaderConnection) {
            let storage = storage
            task = Task { for await event in connection.events { storage.events.withLock { $0.append(event) } } }
        }

        var all: [MobileReaderEvent] { storage.events.withLock { $0 } }
    }

    /// The first list a discovery delivers that contains `serial`.
    static func discover(_ serial: String, _ lane: PhoneLane, _ method: BluetoothDiscoveryStateMachine.Method = .bluetoothScan(timeout: .seconds(30))) async throws -> BluetoothDiscoveredReader {
        let discovery = try lane.client.discoverBluetoothReaders(method, radio: lane.radio)
        defer { discovery.cancel() }
        for await readers in discovery.updates {
            if let found = readers.first(where: { $0.serialNumber == serial }) { return found }
        }
        throw RPCError(.readerNotFound, "\(serial) was not discovered")
    }

    /// Expects `body` to fail with an ``RPCError`` of `reason` (and its status code).
    static func expectRPCFailure<T>(
        _ reason: ReaderGatewayV1.ErrorReason, sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> T
    ) async {
        do {
            _ = try await body()
            Issue.record("expected \(reason), it succeeded", sourceLocation: sourceLocation)
        } catch let error as RPCError {
            #expect(error.reason == reason, "\(error)", sourceLocation: sourceLocation)
            #expect(error.code == reason.statusCode, sourceLocation: sourceLocation)
        } catch {
            Issue.record("expected \(reason), got \(error)", sourceLocation: sourceLocation)
        }
    }

    /// Expects a lane's call to fail with a ``TerminalError`` of `code` over the gateway's
    /// `reason` (and its status code).
    static func expectTerminalFailure<T>(
        _ code: TerminalError.Code, _ reason: ReaderGatewayV1.ErrorReason, sourceLocation: SourceLocation = #_sourceLocation,
        _ body: () async throws -> T
    ) async {
        do {
            _ = try await body()
            Issue.record("expected \(code) (\(reason)), it succeeded", sourceLocation: sourceLocation)
        } catch let error as TerminalError {
            #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
            #expect(error.underlying.reason == reason, "\(error)", sourceLocation: sourceLocation)
            #expect(error.underlying.code == reason.statusCode, sourceLocation: sourceLocation)
        } catch {
            Issue.record("expected \(code) (\(reason)), got \(error)", sourceLocation: sourceLocation)
        }
    }

    static func collectParams(_ intent: String, amount: Int64) -> ReaderGatewayV1.CollectPaymentMethodParams {
        var params = ReaderGatewayV1.CollectPaymentMethodParams()
        params.paymentIntentID = intent
        params.amount = amount
        params.currency = "eur"
        return params
    }

    @Test("scan, pair a WisePad 3 by numeric comparison, connect to a location, pay; a second device neither hears nor connects it")
    func scanPairConnectPay() async throws {
        let harness = try await GatewayHarness.start(offlineBound: Self.reconnectWindow)
        let air = SimulatedBluetoothAir()
        air.addReader(serialNumber: "WPC3-0001", deviceType: .bbposWisepad3, signalStrength: -50)
        air.addReader(serialNumber: "STRM2-0002", deviceType: .stripeM2, signalStrength: -70)
        let phone = try await Self.lane(harness, air: air, device: "phone-a", label: "Floor 1")

        // Scan: the whole list, serials, no labels.
        let discovery = try phone.client.discoverBluetoothReaders(.bluetoothScan(timeout: .seconds(30)), radio: phone.radio)
        var iterator = discovery.updates.makeAsyncIterator()
        let list = try #require(await iterator.next())
        #expect(list.map(\.serialNumber) == ["STRM2-0002", "WPC3-0001"])
        #expect(list.allSatisfy { $0.label == nil })
        await Self.expectTerminalFailure(.discoveryAlreadyInProgress, .discoveryAlreadyInProgress) { try phone.client.discoverBluetoothReaders(.bluetoothProximity, radio: phone.radio) }
        discovery.cancel()
        let stale = try #require(list.first { $0.serialNumber == "WPC3-0001" })
        let wisePad = try await Self.discover("WPC3-0001", phone)
        await Self.expectTerminalFailure(.staleDiscovery, .staleDiscovery) {
            try await phone.client.connectBluetoothReader(stale, radio: phone.radio, BluetoothConnectionConfiguration(locationID: phone.location))
        }
        await Self.expectTerminalFailure(.locationRequired, .locationRequired) {
            try await phone.client.connectBluetoothReader(wisePad, radio: phone.radio, BluetoothConnectionConfiguration(locationID: ""))
        }

        // Pairing: the device shows the passkey the reader shows; the user confirms on the reader.
        let shownOnDevice = Mutex<String?>(nil)
        let pairing = BluetoothConnectionConfiguration(locationID: phone.location) { passkey in
            shownOnDevice.withLock { $0 = passkey }
            #expect(air.displayedPasskey("WPC3-0001") == passkey)
            air.answerPairingOnReader("WPC3-0001", accepted: true)
            return true
        }
        let connected = try await phone.client.connectBluetoothReader(wisePad, radio: phone.radio, pairing)
        let passkey = try #require(shownOnDevice.withLock { $0 })
        #expect(PairingStateMachine.isPasskey(passkey))
        #expect(connected.reader.locationID == phone.location)
        #expect(connected.reader.deviceType == .wisePad3)
        #expect(connected.reader.id.hasPrefix("tmr_"))
        let admin = try await harness.admin()
        #expect(try await admin.ownership(of: connected.reader.id).owner?.laneLabel == "Floor 1")

        // Payments through the ordinary commands: a collect waits for the card; cancel; collect; confirm.
        let cancelled = Task { try await phone.client.collectPaymentMethod(Self.collectParams("pi_bt_1", amount: 1250)) }
        #expect(await eventually { (try? await admin.ownership(of: connected.reader.id).inTransaction) == true })
        try await phone.client.cancelCollectPaymentMethod()
        await Self.expectRPCFailure(.commandCanceled) { try await cancelled.value }
        let collect = Task { try await phone.client.collectPaymentMethod(Self.collectParams("pi_bt_1", amount: 1250)) }
        #expect(await eventually { (try? await admin.ownership(of: connected.reader.id).inTransaction) == true })
        air.presentCard("WPC3-0001", .init(brand: "mastercard", last4: "4444"))
        let collected = try await collect.value
        #expect(collected.paymentMethod?.brand == "mastercard")
        var confirm = ReaderGatewayV1.ConfirmPaymentIntentParams()
        confirm.paymentIntentID = "pi_bt_1"
        let confirmed = try await phone.client.confirmPaymentIntent(confirm)
        #expect(confirmed.status == "succeeded")
        #expect(confirmed.amountReceived == 1250)

        // A second device: the bonded reader does not advertise to it, and the gateway refuses it.
        let other = try await Self.lane(harness, air: air, device: "phone-b", label: "Floor 2", location: phone.location)
        let heard = try other.client.discoverBluetoothReaders(.bluetoothScan(timeout: .seconds(30)), radio: other.radio)
        var heardIterator = heard.updates.makeAsyncIterator()
        #expect(try #require(await heardIterator.next()).map(\.serialNumber) == ["STRM2-0002"])
        heard.cancel()
        var raw = ReaderGatewayV1.ConnectBluetoothReaderRequest()
        raw.sessionToken = try #require(other.client.session?.resumeToken)
        raw.serialNumber = "WPC3-0001"
        raw.deviceType = .bbposWisepad3
        raw.locationID = phone.location
        await Self.expectRPCFailure(.bluetoothAlreadyPairedWithAnotherDevice) {
            try await other.connection.unary(ReaderGatewayV1.Sdk.connectBluetoothReader, raw)
        }
        let gatewaySeen = try await other.client.discoverReaders(locationID: phone.location)
        #expect(!gatewaySeen.contains { $0.serialNumber == "WPC3-0001" })
        var naming = ReaderGatewayV1.ConnectReaderRequest()
        naming.sessionToken = raw.sessionToken
        naming.readerID = connected.reader.id
        await Self.expectRPCFailure(.bluetoothAlreadyPairedWithAnotherDevice) {
            try await other.connection.unary(ReaderGatewayV1.Sdk.connectReader, naming)
        }

        // The first device disconnects: the second may now pair and connect (a re-bond), once
        // the gateway has recorded the first device's link as ended (until then it is still
        // BLUETOOTH_ALREADY_PAIRED_WITH_ANOTHER_DEVICE, and the second device tries again).
        try await connected.disconnect()
        let rebond = BluetoothConnectionConfiguration(locationID: phone.location) { _ in
            air.answerPairingOnReader("WPC3-0001", accepted: true)
            return true
        }
        let takenBox = Mutex<BluetoothReaderConnection?>(nil)
        let rebonded = try await eventually {
            do {
                let found = try await Self.discover("WPC3-0001", other)
                let connection = try await other.client.connectBluetoothReader(found, radio: other.radio, rebond)
                takenBox.withLock { $0 = connection }
                return true
            } catch let error as TerminalError where error.code == .bluetoothAlreadyPairedWithAnotherDevice {
                return false
            }
        }
        #expect(rebonded)
        let taken = try #require(takenBox.withLock { $0 })
        #expect(taken.reader.id == connected.reader.id)
        #expect(try await admin.ownership(of: connected.reader.id).owner?.laneLabel == "Floor 2")
        try await taken.disconnect()
        phone.close()
        other.close()
        await harness.stop()
    }

    @Test("a declined pairing fails with BLUETOOTH_PAIRING_FAILED and registers nothing; a bonded device pairs no more")
    func pairingDeclined() async throws {
        let harness = try await GatewayHarness.start(offlineBound: Self.reconnectWindow)
        let air = SimulatedBluetoothAir()
        air.addReader(serialNumber: "WPC3-0009", deviceType: .bbposWisepad3)
        let phone = try await Self.lane(harness, air: air, device: "phone-a", label: "Floor 1")
        let reader = try await Self.discover("WPC3-0009", phone)
        await Self.expectTerminalFailure(.bluetoothPairingFailed, .bluetoothPairingFailed) {
            try await phone.client.connectBluetoothReader(reader, radio: phone.radio, BluetoothConnectionConfiguration(locationID: phone.location) { _ in false })
        }
        let admin = AdminClient(connection: phone.connection, secretKey: harness.account.secretKey)
        #expect(try await admin.listReaders().isEmpty)
        let asked = Mutex(0)
        let accept = BluetoothConnectionConfiguration(locationID: phone.location) { _ in
            asked.withLock { $0 += 1 }
            air.answerPairingOnReader("WPC3-0009", accepted: true)
            return true
        }
        let first = try await phone.client.connectBluetoothReader(try await Self.discover("WPC3-0009", phone), radio: phone.radio, accept)
        try await first.disconnect()
        #expect(await eventually { air.status("WPC3-0009")?.connectedTo == nil })
        let again = try await phone.client.connectBluetoothReader(try await Self.discover("WPC3-0009", phone), radio: phone.radio, accept)
        #expect(asked.withLock { $0 } == 1)
        try await again.disconnect()
        phone.close()
        await harness.stop()
    }

    @Test("out of range: didStartReconnect(bluetoothSignalLost) with the owner kept, back in range: didSucceedReconnect and payments go on; powered off: didFailReconnect, didDisconnect(poweredOff), released, reasons in the history")
    func autoReconnect() async throws {
        let harness = try await GatewayHarness.start(offlineBound: Self.reconnectWindow)
        let air = SimulatedBluetoothAir()
        air.addReader(serialNumber: "STRM2-0001", deviceType: .stripeM2, tapAutomatically: .init())
        let phone = try await Self.lane(harness, air: air, device: "phone-a", label: "Floor 1")
        // The reconnect's timeout passes in the air's simulated time, when the test says so:
        // in real time it is a minute, far beyond any wait here.
        let configuration = BluetoothConnectionConfiguration(locationID: phone.location, reconnectTimeout: .seconds(60))
        let connected = try await phone.client.connectBluetoothReader(try await Self.discover("STRM2-0001", phone), radio: phone.radio, configuration)
        let log = MobileEventLog(connected)
        let admin = try await harness.admin()
        let readerID = connected.reader.id

        air.setInRange("STRM2-0001", false)
        #expect(await eventually { log.all == [.didStartReconnect(serialNumber: "STRM2-0001", reason: .bluetoothSignalLost)] })
        // The gateway keeps the owner while the device reconnects.
        #expect(await eventually { (try? await admin.history(of: readerID))?.first?.reason == .mobileLinkEnded })
        #expect(try await admin.ownership(of: readerID).owner?.laneLabel == "Floor 1")
        air.setInRange("STRM2-0001", true)
        #expect(await eventually { log.all.last == .didSucceedReconnect(serialNumber: "STRM2-0001") })
        #expect(await eventually { (try? await admin.ownership(of: readerID))?.networkStatus == .online })
        let collected = try await phone.client.collectPaymentMethod(Self.collectParams("pi_bt_2", amount: 500))
        #expect(collected.paymentMethod?.last4 == "4242")

        air.setPower("STRM2-0001", on: false)
        #expect(await eventually { air.isConnectWaiting(for: "STRM2-0001") })
        // The minute passes only once the gateway has recorded the power-off's ending, as it
        // has long before a real reconnect times out (the release then follows it).
        #expect(await eventually { (try? await admin.history(of: readerID))?.first?.mobileDisconnectReason == .poweredOff })
        air.advance(by: .seconds(61))
        #expect(await eventually { log.all.count == 5 })
        #expect(Array(log.all.suffix(3)) == [
            .didStartReconnect(serialNumber: "STRM2-0001", reason: .poweredOff),
            .didFailReconnect(serialNumber: "STRM2-0001"),
            .didDisconnect(serialNumber: "STRM2-0001", reason: .poweredOff),
        ])
        #expect(await eventually { (try? await admin.ownership(of: readerID))?.owner == nil })
        let history = try await admin.history(of: readerID)
        let endings = history.filter { $0.reason == .mobileLinkEnded }.map { ($0.mobileDisconnectReason, $0.linkReconnecting) }
        #expect(endings.map(\.0) == [.poweredOff, .bluetoothSignalLost])
        let allReconnecting = endings.allSatisfy { $0.1 }
        #expect(allReconnecting)
        #expect(history.first?.reason == .released)
        phone.close()
        await harness.stop()
    }

    @Test("auto-reconnect off: a critically low battery ends the connection at once, the owner is released, didDisconnect says why")
    func noAutoReconnect() async throws {
        let harness = try await GatewayHarness.start(offlineBound: Self.reconnectWindow)
        let air = SimulatedBluetoothAir()
        air.addReader(serialNumber: "CHB2-0001", deviceType: .bbposChipper2xBt, batteryLevel: 0.3)
        let phone = try await Self.lane(harness, air: air, device: "phone-a", label: "Floor 1")
        let connected = try await phone.client.connectBluetoothReader(
            try await Self.discover("CHB2-0001", phone, .bluetoothProximity), radio: phone.radio,
            BluetoothConnectionConfiguration(locationID: phone.location, autoReconnectOnUnexpectedDisconnect: false)
        )
        let log = MobileEventLog(connected)
        let admin = try await harness.admin()
        air.setBattery("CHB2-0001", 0.04)
        #expect(await eventually { log.all == [.didDisconnect(serialNumber: "CHB2-0001", reason: .criticallyLowBattery)] })
        #expect(await eventually { (try? await admin.ownership(of: connected.reader.id))?.owner == nil })
        let history = try await admin.history(of: connected.reader.id)
        #expect(history.contains { $0.reason == .readerLost })
        #expect(history.contains { $0.reason == .mobileLinkEnded && $0.mobileDisconnectReason == .criticallyLowBattery && !$0.linkReconnecting })
        phone.close()
        await harness.stop()
    }

    @Test("rebootReader disconnects (rebootRequested), reboots, resets the 24-hour timer and reconnects; 24 h of uptime reboot the reader by itself (securityReboot)")
    func rebootAndSecurityReboot() async throws {
        let harness = try await GatewayHarness.start(offlineBound: Self.reconnectWindow)
        let air = SimulatedBluetoothAir()
        air.addReader(serialNumber: "WPC3-0002", deviceType: .bbposWisepad3, tapAutomatically: .init())
        let phone = try await Self.lane(harness, air: air, device: "phone-a", label: "Floor 1")
        let connected = try await phone.client.connectBluetoothReader(
            try await Self.discover("WPC3-0002", phone), radio: phone.radio,
            BluetoothConnectionConfiguration(locationID: phone.location) { _ in
                air.answerPairingOnReader("WPC3-0002", accepted: true)
                return true
            }
        )
        let log = MobileEventLog(connected)
        air.advance(by: .seconds(20 * 3600))
        #expect(air.status("WPC3-0002")?.uptime == .seconds(20 * 3600))
        try await phone.client.rebootReader()
        #expect(await eventually { log.all.count == 2 })
        #expect(log.all == [.didStartReconnect(serialNumber: "WPC3-0002", reason: .rebootRequested), .didSucceedReconnect(serialNumber: "WPC3-0002")])
        #expect(air.status("WPC3-0002")?.uptime == .zero)
        // 20 more hours: under 24 h since the reboot, nothing happens.
        air.advance(by: .seconds(20 * 3600))
        #expect(log.all.count == 2)
        air.advance(by: .seconds(4 * 3600))
        #expect(await eventually { log.all.count == 4 })
        #expect(Array(log.all.suffix(2)) == [
            .didStartReconnect(serialNumber: "WPC3-0002", reason: .securityReboot), .didSucceedReconnect(serialNumber: "WPC3-0002"),
        ])
        let collected = try await phone.client.collectPaymentMethod(Self.collectParams("pi_bt_3", amount: 700))
        #expect(collected.paymentMethod != nil)
        let admin = try await harness.admin()
        // Each ending is recorded by the old link's serving task after its call ended, which
        // may come after the new link is serving: wait for both rows, then check their reasons.
        let endingReasons = { try await admin.history(of: connected.reader.id).filter { $0.reason == .mobileLinkEnded }.map(\.mobileDisconnectReason) }
        #expect(await eventually { (try? await endingReasons())?.count == 2 })
        let reasons = try await endingReasons()
        #expect(reasons == [.securityReboot, .rebootRequested])
        try await connected.disconnect()
        phone.close()
        await harness.stop()
    }

    @Test("a cancelled reconnect reports didFailReconnect then didDisconnect and releases the reader")
    func cancelReconnect() async throws {
        let harness = try await GatewayHarness.start(offlineBound: Self.reconnectWindow)
        let air = SimulatedBluetoothAir()
        air.addReader(serialNumber: "STRM2-0005", deviceType: .stripeM2)
        let phone = try await Self.lane(harness, air: air, device: "phone-a", label: "Floor 1")
        let connected = try await phone.client.connectBluetoothReader(
            try await Self.discover("STRM2-0005", phone), radio: phone.radio, BluetoothConnectionConfiguration(locationID: phone.location)
        )
        let log = MobileEventLog(connected)
        air.setBluetooth(device: "phone-a", enabled: false)
        #expect(await eventually { log.all == [.didStartReconnect(serialNumber: "STRM2-0005", reason: .bluetoothDisabled)] })
        connected.cancelReconnect()
        #expect(await eventually { log.all.count == 3 })
        #expect(Array(log.all.suffix(2)) == [.didFailReconnect(serialNumber: "STRM2-0005"), .didDisconnect(serialNumber: "STRM2-0005", reason: .bluetoothDisabled)])
        let admin = try await harness.admin()
        #expect(await eventually { (try? await admin.ownership(of: connected.reader.id))?.owner == nil })
        phone.close()
        await harness.stop()
    }

    @Test("on app start the stored serial is found by a scan and connected; a reader not nearby ends the scan with READER_NOT_FOUND")
    func reconnectOnAppStart() async throws {
        let harness = try await GatewayHarness.start(offlineBound: Self.reconnectWindow)
        let air = SimulatedBluetoothAir()
        air.addReader(serialNumber: "STRM2-0007", deviceType: .stripeM2)
        air.addReader(serialNumber: "STRM2-0008", deviceType: .stripeM2)
        let phone = try await Self.lane(harness, air: air, device: "phone-a", label: "Floor 1")
        let configuration = BluetoothConnectionConfiguration(locationID: phone.location)
        let connected = try await phone.client.reconnectToStoredBluetoothReader(serialNumber: "STRM2-0008", radio: phone.radio, configuration)
        #expect(connected.serialNumber == "STRM2-0008")
        try await connected.disconnect()
        await Self.expectTerminalFailure(.readerNotFound, .readerNotFound) {
            try await phone.client.reconnectToStoredBluetoothReader(serialNumber: "STRM2-0404", radio: phone.radio, scanTimeout: .milliseconds(300), configuration)
        }
        // The scan stopped: a new discovery may start.
        let next = try phone.client.discoverBluetoothReaders(.bluetoothScan(timeout: nil), radio: phone.radio)
        next.cancel()
        phone.close()
        await harness.stop()
    }
}
