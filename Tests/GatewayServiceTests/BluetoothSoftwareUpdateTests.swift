import GatewayClient
import GatewayTestKit
import GatewayWire
import Synchronization
import Testing

/// Software updates of Bluetooth readers: a simulated WisePad 3 (its battery and version on
/// the link the phone carries, the install with progress on the reader) against a real gateway
/// whose update rules run on a clock the test sets, with a catalog for `bbpos_wisepad3`.
@Suite("Bluetooth software updates", .timeLimit(.minutes(5)))
struct BluetoothSoftwareUpdateTests {
    static let serial = "WPC3-0101"

    /// A gateway on a set clock, an admin for the catalog, a WisePad 3 in the air at `battery`
    /// running 2.4.0, a phone lane with its events logged, and the catalog's required 2.5.0.
    struct Fixture {
        let harness: GatewayHarness
        let admin: AdminClient
        let adminConnection: GatewayConnection
        let air: SimulatedBluetoothAir
        let phone: BluetoothReaderTests.PhoneLane
        let log: EventLog

        static func start(battery: Float) async throws -> Fixture {
            let clock = SettableClock(UpdateFixture.start)
            let harness = try await GatewayHarness.start(offlineBound: BluetoothReaderTests.reconnectWindow, updateClock: clock.wallClock)
            let adminConnection = GatewayConnection(ClientChannelConfiguration(host: "127.0.0.1", port: harness.port, serverName: "localhost", trustedCAPath: harness.caPath))
            let admin = AdminClient(connection: adminConnection, secretKey: harness.account.secretKey)
            var update = ReaderGatewayV1.ReaderSoftwareUpdate()
            update.deviceType = .bbposWisepad3
            update.version = "2.5.0"
            update.components = ["firmware"]
            update.durationEstimate = .lessThanOneMinute
            update.requiredAtUnixMs = UpdateFixture.start - SettableClock.hour
            _ = try await admin.addSoftwareUpdate(update)
            let air = SimulatedBluetoothAir(options: .init(updateDuration: .milliseconds(200)))
            air.addReader(serialNumber: serial, deviceType: .bbposWisepad3, batteryLevel: battery, softwareVersion: "2.4.0")
            let phone = try await BluetoothReaderTests.lane(harness, air: air, device: "phone-updates", label: "Floor 1")
            return Fixture(harness: harness, admin: admin, adminConnection: adminConnection, air: air, phone: phone, log: EventLog(phone.client))
        }

        /// Discovers the WisePad 3 and connects it (pairing confirmed on both sides).
        func connect() async throws -> BluetoothReaderConnection {
            let found = try await BluetoothReaderTests.discover(serial, phone)
            let air = self.air
            let pairing = BluetoothConnectionConfiguration(locationID: phone.location) { _ in
                air.answerPairingOnReader(serial, accepted: true)
                return true
            }
            return try await phone.client.connectBluetoothReader(found, radio: phone.radio, pairing)
        }

        func listed() async throws -> ReaderGatewayV1.Reader? {
            try await admin.listReaders().first { $0.serialNumber == serial }
        }

        func stop() async {
            log.stop()
            phone.close()
            adminConnection.close()
            await harness.stop()
        }
    }

    @Test("a WisePad 3 installs its required update during connect: progress 0 to 1 on its link, the new version in the fleet, nothing more at the next connect")
    func requiredUpdateWithProgress() async throws {
        let fixture = try await Fixture.start(battery: 0.8)
        let connected = try await fixture.connect()
        // The connect answered after the install: the reader reported every step through the phone.
        #expect(fixture.log.started.map(\.version) == ["2.5.0"])
        #expect(fixture.log.started.first?.required == true)
        #expect(await eventually { fixture.log.progress.last == 1 })
        #expect(fixture.log.progress == [0, 0.25, 0.5, 0.75, 1], "\(fixture.log.progress)")
        #expect(fixture.phone.client.connectionStatus == .connected)
        #expect(fixture.air.softwareVersion(Self.serial) == "2.5.0")
        let admin = try await fixture.harness.admin()
        #expect(try await admin.ownership(of: connected.reader.id).owner?.laneLabel == "Floor 1")
        // The fleet sees the version (from the link's heartbeat) and the battery, nothing pending.
        let listed = try #require(try await fixture.listed())
        #expect(listed.softwareVersion == "2.5.0")
        #expect(listed.availableUpdate == nil)
        #expect(listed.batteryLevel.map { abs($0 - 0.8) < 0.01 } == true, "\(String(describing: listed.batteryLevel))")
        #expect(listed.deviceType == .bbposWisepad3)

        // The reader runs the required version: the next connect installs nothing.
        try await connected.disconnect()
        #expect(await eventually { fixture.air.status(Self.serial)?.connectedTo == nil })
        let again = try await fixture.connect()
        #expect(fixture.log.started.count == 1, "\(fixture.log.started)")
        #expect(fixture.air.softwareVersion(Self.serial) == "2.5.0")
        try await again.disconnect()
        await fixture.stop()
    }

    @Test("a WisePad 3 at 40 % with a required update is refused with READER_SOFTWARE_UPDATE_FAILED_BATTERY_LOW: released, its Bluetooth connection ended, the version unchanged")
    func lowBatteryRefused() async throws {
        let fixture = try await Fixture.start(battery: 0.4)
        do {
            _ = try await fixture.connect()
            Issue.record("the connect succeeded with the battery at 40 %")
        } catch let error as RPCError {
            #expect(error.reason == .readerSoftwareUpdateFailedBatteryLow, "\(error)")
            #expect(error.code == .failedPrecondition)
            #expect(error.message.contains("40 %") && error.message.contains("50 %"), "\(error.message)")
        }
        #expect(fixture.log.started.isEmpty, "\(fixture.log.started)")
        #expect(fixture.phone.client.connectionStatus == .notConnected)
        #expect(await eventually { fixture.air.status(Self.serial)?.connectedTo == nil })
        #expect(fixture.air.softwareVersion(Self.serial) == "2.4.0")
        let listed = try #require(try await fixture.listed())
        let admin = try await fixture.harness.admin()
        #expect(try await admin.ownership(of: listed.id).owner?.sessionID.isEmpty ?? true)
        #expect(listed.softwareVersion == "2.4.0")
        #expect(listed.availableUpdate?.version == "2.5.0")
        #expect(listed.availableUpdate?.required == true)
        // The battery the phone's link reported, as the fleet keeps it once the reader is offline:
        // written by the gateway after the report, so listed once that write has landed.
        #expect(await eventually { (try? await fixture.listed())?.batteryLevel.map { abs($0 - 0.4) < 0.01 } == true })
        await fixture.stop()
    }
}
