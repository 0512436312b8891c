import GatewayClient
import GatewaySimulators
import GatewayTestKit
import GatewayWire
import GatewayWireClients
import Synchronization
import Testing

/// Software updates of Bluetooth readers: a simulated WisePad 3 (its battery and version on
/// the link the phone carries, the install with progress on the reader) against a real gateway
/// whose update rules run on a clock the test sets, with a catalog for `bbpos_wisepad3`.
@Suite("Bluetooth software updates", .timeLimit(.minutes(5)))
struct BluetoothSoftwareUpdateTests {
    static let serial = "WPC3-0101"

    /// A gateway on a set clock, an admin for the catalog, a WisePad 3 in the air at `battery`
    /// running 2.4.0 (its installs taking `updateDuration`), a phone lane with its events
    /// logged, and the catalog: by default 2.5.0, required since an hour before the clock's start.
    struct Fixture {
        let harness: GatewayHarness
        let clock: SettableClock
        let admin: AdminClient
        let adminConnection: GatewayConnection
        let air: SimulatedBluetoothAir
        let phone: BluetoothReaderTests.PhoneLane
        let log: EventLog

        static func start(
            battery: Float, updateDuration: Duration = .milliseconds(200),
            catalog: [(version: String, requiredAt: Int64?)] = [("2.5.0", UpdateFixture.start - SettableClock.hour)]
        ) async throws -> Fixture {
            let clock = SettableClock(UpdateFixture.start)
            let harness = try await GatewayHarness.start(offlineBound: BluetoothReaderTests.reconnectWindow, updateClock: clock.wallClock)
            let adminConnection = GatewayConnection(harness.clientConfiguration)
            let admin = AdminClient(connection: adminConnection, secretKey: harness.account.secretKey)
            for (version, requiredAt) in catalog { try await add(version, requiredAt: requiredAt, admin: admin) }
            let air = SimulatedBluetoothAir(options: .init(updateDuration: updateDuration))
            air.addReader(serialNumber: serial, deviceType: .bbposWisepad3, batteryLevel: battery, softwareVersion: "2.4.0")
            let phone = try await BluetoothReaderTests.lane(harness, air: air, device: "phone-updates", label: "Floor 1")
            return Fixture(
                harness: harness, clock: clock, admin: admin, adminConnection: adminConnection, air: air, phone: phone, log: EventLog(phone.client)
            )
        }

        /// Adds `version` of the WisePad 3's software to the catalog (nil `requiredAt`: optional).
        static func add(_ version: String, requiredAt: Int64?, admin: AdminClient) async throws {
            var update = ReaderGatewayV1.ReaderSoftwareUpdate()
            update.deviceType = .bbposWisepad3
            update.version = version
            update.components = ["firmware"]
            update.durationEstimate = .lessThanOneMinute
            update.requiredAtUnixMs = requiredAt ?? 0
            _ = try await admin.addSoftwareUpdate(update)
        }

        /// Who holds the WisePad 3 at the gateway (nil: nobody).
        func owner(_ readerID: String) async throws -> ReaderGatewayV1.ReaderOwner? {
            let owner = try await admin.getReader(readerID).ownership?.owner
            return owner?.sessionID.isEmpty == false ? owner : nil
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
        #expect(fixture.log.started.first?.isRequired == true)
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
        } catch let error as TerminalError {
            #expect(error.code == .readerSoftwareUpdateFailedBatteryLow, "\(error)")
            #expect(error.underlying.code == .failedPrecondition)
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

    @Test("cancelling a required update during connect fails the connect with COMMAND_CANCELED: not owned, the Bluetooth connection ended, the version unchanged; the next connect installs it again")
    func requiredUpdateCancelled() async throws {
        // Quarters of two and a half minutes: the install cannot finish before the cancel.
        let fixture = try await Fixture.start(battery: 0.8, updateDuration: .seconds(600))
        let connecting = Task { try await fixture.connect() }
        #expect(await eventually { fixture.log.progress.contains(0) })
        #expect(fixture.log.started.map(\.version) == ["2.5.0"])
        #expect(fixture.phone.client.connectionStatus == .connecting)
        #expect(try await fixture.phone.client.cancelReaderSoftwareUpdate())
        do {
            _ = try await connecting.value
            Issue.record("the connect succeeded after its required update was cancelled")
        } catch let error as TerminalError {
            #expect(error.code == .canceled, "\(error)")
            #expect(error.underlying.reason == .commandCanceled, "\(error)")
            #expect(error.message.contains("2.5.0") && error.message.contains("connect again"), "\(error.message)")
        }
        #expect(fixture.phone.client.connectionStatus == .notConnected)
        #expect(await eventually { fixture.air.status(Self.serial)?.connectedTo == nil })
        #expect(fixture.air.softwareVersion(Self.serial) == "2.4.0")
        let listed = try #require(try await fixture.listed())
        #expect(try await fixture.owner(listed.id) == nil)
        #expect(listed.availableUpdate?.version == "2.5.0")
        #expect(listed.availableUpdate?.required == true)

        // The next connect installs it again (and is cancelled again: its quarters are as long).
        let again = Task { try await fixture.connect() }
        #expect(await eventually { fixture.log.started.count == 2 })
        #expect(await eventually { fixture.log.progress.filter { $0 == 0 }.count == 2 })
        #expect(fixture.phone.client.connectionStatus == .connecting)
        #expect(try await fixture.phone.client.cancelReaderSoftwareUpdate())
        await BluetoothReaderTests.expectTerminalFailure(.canceled, .commandCanceled) { try await again.value }
        #expect(try await fixture.owner(listed.id) == nil)
        #expect(fixture.air.softwareVersion(Self.serial) == "2.4.0")
        await fixture.stop()
    }

    @Test("a required update that fails on the reader connects only within 30 days of running the location's latest version, else READER_SOFTWARE_UPDATE_FAILED; each next connect retries it")
    func requiredUpdateFailsOnReader() async throws {
        // Day 0: 2.4.0 (the reader's version) is the location's latest: the connect records it.
        let fixture = try await Fixture.start(battery: 0.8, catalog: [("2.4.0", UpdateFixture.start - SettableClock.day)])
        let current = try await fixture.connect()
        #expect(fixture.phone.client.connectedReader?.availableUpdate == nil)
        try await current.disconnect()
        #expect(await eventually { fixture.air.status(Self.serial)?.connectedTo == nil })

        // 2.5.0 is required from day 1; on day 10 its install fails and the reader still connects.
        try await Fixture.add("2.5.0", requiredAt: UpdateFixture.start + SettableClock.day, admin: fixture.admin)
        fixture.clock.advance(by: 10 * SettableClock.day)
        fixture.air.failNextUpdate(Self.serial)
        let within = try await fixture.connect()
        let failure = try #require(within.requiredUpdateFailure, "the connect did not report the failed update")
        #expect(failure.code == .readerSoftwareUpdateFailed)
        #expect(failure.message.contains("2.5.0") && failure.message.contains("30 days"), "\(failure.message)")
        #expect(fixture.log.started.map(\.version) == ["2.5.0"])
        #expect(fixture.phone.client.connectionStatus == .connected)
        #expect(fixture.air.softwareVersion(Self.serial) == "2.4.0")
        let connected = try #require(fixture.phone.client.connectedReader)
        #expect(connected.softwareVersion == "2.4.0")
        #expect(connected.availableUpdate?.version == "2.5.0")
        #expect(connected.availableUpdate?.isRequired == true)
        #expect(try await fixture.owner(within.reader.id)?.laneLabel == "Floor 1")
        try await within.disconnect()
        #expect(await eventually { fixture.air.status(Self.serial)?.connectedTo == nil })

        // Day 31: the retried install fails again, and thirty-one days have passed: refused and released.
        fixture.clock.advance(by: 21 * SettableClock.day)
        fixture.air.failNextUpdate(Self.serial)
        do {
            _ = try await fixture.connect()
            Issue.record("the connect succeeded 31 days after the reader last ran the latest version")
        } catch let error as TerminalError {
            #expect(error.code == .readerSoftwareUpdateFailed, "\(error)")
            #expect(error.message.contains("2.5.0") && error.message.contains("30 days"), "\(error.message)")
        }
        #expect(fixture.log.started.count == 2)
        #expect(fixture.phone.client.connectionStatus == .notConnected)
        #expect(await eventually { fixture.air.status(Self.serial)?.connectedTo == nil })
        #expect(try await fixture.owner(within.reader.id) == nil)

        // The next connect retries it; this time it installs, and the reader connects on 2.5.0.
        let installed = try await fixture.connect()
        #expect(installed.requiredUpdateFailure == nil)
        #expect(fixture.log.started.count == 3)
        #expect(fixture.air.softwareVersion(Self.serial) == "2.5.0")
        #expect(fixture.phone.client.connectedReader?.softwareVersion == "2.5.0")
        #expect(fixture.phone.client.connectedReader?.availableUpdate == nil)
        try await installed.disconnect()
        await fixture.stop()
    }

    @Test("an optional update that fails while the reader is connected leaves it connected and the update available; the battery falling to 40 % refuses the next install; charged, it installs")
    func optionalInstallFailsWhileConnected() async throws {
        let fixture = try await Fixture.start(battery: 0.8, catalog: [("2.5.0", nil)])
        let connected = try await fixture.connect()
        #expect(fixture.log.started.isEmpty)
        #expect(fixture.phone.client.connectedReader?.availableUpdate?.version == "2.5.0")
        #expect(fixture.phone.client.connectedReader?.availableUpdate?.isRequired == false)

        fixture.air.failNextUpdate(Self.serial)
        await BluetoothReaderTests.expectTerminalFailure(.readerSoftwareUpdateFailed, .readerSoftwareUpdateFailed) { try await fixture.phone.client.installAvailableUpdate() }
        #expect(fixture.log.started.map(\.version) == ["2.5.0"])
        #expect(fixture.phone.client.connectionStatus == .connected)
        #expect(fixture.air.status(Self.serial)?.connectedTo == "phone-updates")
        #expect(fixture.air.softwareVersion(Self.serial) == "2.4.0")
        #expect(try await fixture.owner(connected.reader.id)?.laneLabel == "Floor 1")
        let listed = try #require(try await fixture.listed())
        #expect(listed.softwareVersion == "2.4.0")
        #expect(listed.availableUpdate?.version == "2.5.0")

        // The battery falls to 40 %: refused (by the gateway once the heartbeat says so, else by
        // the reader itself), and the reader stays connected.
        fixture.air.setBattery(Self.serial, 0.4)
        await BluetoothReaderTests.expectTerminalFailure(.readerSoftwareUpdateFailedBatteryLow, .readerSoftwareUpdateFailedBatteryLow) { try await fixture.phone.client.installAvailableUpdate() }
        #expect(fixture.phone.client.connectionStatus == .connected)
        #expect(fixture.air.softwareVersion(Self.serial) == "2.4.0")
        #expect(try await fixture.owner(connected.reader.id)?.laneLabel == "Floor 1")

        // Charged again (once the gateway has heard it), it installs.
        fixture.air.setBattery(Self.serial, 0.9)
        #expect(await eventually { (try? await fixture.listed())?.batteryLevel.map { $0 > 0.85 } == true })
        #expect(try await fixture.phone.client.installAvailableUpdate() == "2.5.0")
        #expect(fixture.air.softwareVersion(Self.serial) == "2.5.0")
        #expect(fixture.phone.client.connectionStatus == .connected)
        #expect(await eventually { (try? await fixture.listed())?.availableUpdate == nil })
        try await connected.disconnect()
        await fixture.stop()
    }

    @Test("a location's install window: an update required outside it installs at a connect only from the window's next opening; the window is listed, refused when out of range, and cleared")
    func installWindowDefersRequired() async throws {
        // The clock starts at 17:46 UTC; 2.5.0 was required at 16:46, outside 02:00-05:00 UTC.
        let fixture = try await Fixture.start(battery: 0.8)
        var window = ReaderGatewayV1.InstallWindow()
        window.startMinute = 2 * 60
        window.endMinute = 5 * 60
        let location = try await fixture.admin.setInstallWindow(fixture.phone.location, window)
        #expect(location.installWindow == window)
        #expect(try await fixture.admin.listLocations().first { $0.id == fixture.phone.location }?.installWindow == window)

        // Until 02:00 the update is optional here: the connect installs nothing and reports it.
        let optional = try await fixture.connect()
        #expect(fixture.log.started.isEmpty)
        #expect(fixture.phone.client.connectedReader?.availableUpdate?.version == "2.5.0")
        #expect(fixture.phone.client.connectedReader?.availableUpdate?.isRequired == false)
        #expect(await eventually { fixture.log.available.map(\.version) == ["2.5.0"] })
        try await optional.disconnect()
        #expect(await eventually { fixture.air.status(Self.serial)?.connectedTo == nil })

        // 02:00 the next day (8 h 14 min later): required, it installs during the connect.
        fixture.clock.advance(by: 8 * SettableClock.hour + 14 * 60_000)
        let required = try await fixture.connect()
        #expect(fixture.log.started.map(\.version) == ["2.5.0"])
        #expect(fixture.log.started.first?.isRequired == true)
        #expect(fixture.air.softwareVersion(Self.serial) == "2.5.0")
        try await required.disconnect()

        // Out of range, or both set and cleared: refused with what to fix, the window unchanged.
        var empty = window
        empty.endMinute = empty.startMinute
        var farEast = window
        farEast.utcOffsetMinutes = 15 * 60
        for (bad, expected) in [(empty, "same time"), (farEast, "UTC offset")] {
            await BluetoothReaderTests.expectRPCFailure(.invalidRequest) { try await fixture.admin.setInstallWindow(fixture.phone.location, bad) }
            do { _ = try await fixture.admin.setInstallWindow(fixture.phone.location, bad) } catch let error as RPCError {
                #expect(error.message.contains(expected), "\(error.message)")
            }
        }
        var both = ReaderGatewayV1.UpdateLocationRequest()
        both.locationID = fixture.phone.location
        both.installWindow = window
        both.clearInstallWindow = true
        await BluetoothReaderTests.expectRPCFailure(.invalidRequest) {
            try await fixture.adminConnection.unary(ReaderGatewayV1.FleetAdmin.updateLocation, both, metadata: [.bearer(fixture.harness.account.secretKey)])
        }
        #expect(try await fixture.admin.listLocations().first { $0.id == fixture.phone.location }?.installWindow == window)
        #expect(try await fixture.admin.setInstallWindow(fixture.phone.location, nil).installWindow == nil)
        #expect(try await fixture.admin.listLocations().first { $0.id == fixture.phone.location }?.installWindow == nil)
        await BluetoothReaderTests.expectRPCFailure(.locationNotFound) { try await fixture.admin.setInstallWindow("tml_unknown", window) }
        await fixture.stop()
    }
}
