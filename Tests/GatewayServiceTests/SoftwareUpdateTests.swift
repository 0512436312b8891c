import Foundation
import GatewayClient
import GatewayService
import GatewayTestKit
import GatewayTestSupport
import GatewayWire
import GatewayWireClients
import Testing

/// The software update paths with real processes: a gateway whose update rules run on a clock
/// the test sets, a `reader-sim` mobile reader (battery, version, install with progress or
/// failure) and lanes through the client library.
@Suite("software updates", .serialized)
struct SoftwareUpdateTests {
    @Test("a required update installs during connect: updateStarted, progress 0 to 1, the new version, the connect answers after it")
    func requiredUpdateWithProgress() async throws {
        let fixture = try await UpdateFixture.start(serial: "MOB-REQUIRED")
        let required = try await fixture.addUpdate("1.1.0", requiredAt: UpdateFixture.start - SettableClock.hour)
        #expect(required.requiredAtUnixMs == UpdateFixture.start - SettableClock.hour)
        let (lane, log) = try await fixture.lane("Floor 1", device: "phone-1")
        let discovered = try await fixture.discover(lane)
        #expect(discovered.reader.availableUpdate?.version == "1.1.0")
        #expect(discovered.reader.availableUpdate?.isRequired == true)
        let response = try await lane.connectReader(discovered)
        #expect(response.reader?.softwareVersion == "1.1.0")
        #expect(response.reader?.availableUpdate == nil)
        #expect(response.requiredUpdateFailure == nil)
        #expect(lane.connectionStatus == .connected)
        // The install ran before the connect answered: the reader reported every step.
        #expect(await eventually { log.progress.last == 1 })
        #expect(log.started.map(\.version) == ["1.1.0"])
        #expect(log.started.first?.isRequired == true)
        #expect(log.progress == [0, 0.25, 0.5, 0.75, 1], "\(log.progress)")
        #expect(fixture.simulatorLines(containing: "updated serial=MOB-REQUIRED version=1.1.0") == 1, "\(fixture.simulator.output)")
        // The fleet sees the new version and nothing pending; the next connect installs nothing.
        let listed = try #require(try await fixture.admin.listReaders().first { $0.id == fixture.readerID })
        #expect(listed.softwareVersion == "1.1.0")
        #expect(listed.availableUpdate == nil)
        // The event log has the install, written with the version.
        var installed = ReaderGatewayV1.ListEventsRequest()
        installed.types = ["reader.software_update.installed"]
        let events = try await fixture.admin.listEvents(installed).events
        #expect(events.map(\.readerID) == [fixture.readerID])
        #expect(events.first?.objectJson.contains("\"version\": \"1.1.0\"") == true, "\(events)")
        try await lane.disconnectReader()
        try await fixture.connect(lane)
        #expect(fixture.simulatorLines(containing: "kind=install_update") == 1)
        await fixture.stop()
    }

    @Test("cancelling a required update fails the connect (status stays connecting until then) and releases the reader; the next connect tries again")
    func cancelFailsTheConnect() async throws {
        let fixture = try await UpdateFixture.start(serial: "MOB-CANCEL", simulatorArguments: ["--update-duration", "10m"])
        try await fixture.addUpdate("1.1.0", requiredAt: UpdateFixture.start)
        let (lane, log) = try await fixture.lane("Floor 1", device: "phone-1")
        let discovered = try await fixture.discover(lane)
        let connect = Task { try await lane.connectReader(discovered) }
        // The install takes ten minutes: the connect cannot answer before the cancel.
        #expect(await eventually { log.progress.contains(0) })
        #expect(log.started.map(\.version) == ["1.1.0"])
        #expect(lane.connectionStatus == .connecting)
        #expect(try await lane.cancelReaderSoftwareUpdate())
        do {
            _ = try await connect.value
            Issue.record("the connect succeeded after its required update was cancelled")
        } catch let error as RPCError {
            #expect(error.reason == .commandCanceled)
            #expect(error.message.contains("1.1.0") && error.message.contains("connect again"), "\(error.message)")
        }
        #expect(lane.connectionStatus == .notConnected)
        #expect(try await fixture.owner() == nil)
        #expect(fixture.simulatorLines(containing: "update_canceled serial=MOB-CANCEL") == 1, "\(fixture.simulator.output)")
        // Retried at the next connect.
        let again = Task { try await lane.connectReader(try await fixture.discover(lane)) }
        #expect(await eventually { fixture.simulatorLines(containing: "kind=install_update") == 2 })
        _ = try await lane.cancelReaderSoftwareUpdate()
        await #expect(throws: RPCError.self) { _ = try await again.value }
        await fixture.stop()
    }

    @Test("the reader's link ending mid-install fails the connect: interrupted, and without a recent latest version not let through")
    func interruptedInstall() async throws {
        let fixture = try await UpdateFixture.start(serial: "MOB-INTERRUPT", simulatorArguments: ["--update-duration", "10m"])
        try await fixture.addUpdate("1.1.0", requiredAt: UpdateFixture.start)
        let (lane, log) = try await fixture.lane("Floor 1", device: "phone-1")
        let discovered = try await fixture.discover(lane)
        let connect = Task { try await lane.connectReader(discovered) }
        #expect(await eventually { log.progress.contains(0) })
        fixture.simulator.process.signal(SIGKILL)
        do {
            _ = try await connect.value
            Issue.record("the connect succeeded although the reader went away during its required update")
        } catch let error as RPCError {
            // The session lost the reader with its link (before or after the install's failure
            // came back): the install was interrupted, or the rule refused it without a recent latest version.
            #expect(error.reason == .readerSoftwareUpdateFailedInterrupted || error.reason == .readerSoftwareUpdateFailed, "\(error)")
            #expect(error.message.contains("link ended"), "\(error.message)")
        }
        #expect(lane.connectionStatus == .notConnected)
        #expect(try await fixture.owner() == nil)
        await fixture.stop()
    }

    @Test("a required update with the battery at 40 % fails the connect with READER_SOFTWARE_UPDATE_FAILED_BATTERY_LOW and releases the reader")
    func lowBatteryFailsTheConnect() async throws {
        let fixture = try await UpdateFixture.start(serial: "MOB-LOWBAT", simulatorArguments: ["--battery", "0.4"])
        try await fixture.addUpdate("1.1.0", requiredAt: UpdateFixture.start)
        let (lane, _) = try await fixture.lane("Floor 1", device: "phone-1")
        do {
            try await fixture.connect(lane)
            Issue.record("the connect succeeded with the battery at 40 %")
        } catch let error as RPCError {
            #expect(error.reason == .readerSoftwareUpdateFailedBatteryLow)
            #expect(error.code == .failedPrecondition)
            #expect(error.message.contains("40 %") && error.message.contains("50 %"), "\(error.message)")
        }
        #expect(lane.connectionStatus == .notConnected)
        #expect(try await fixture.owner() == nil)
        #expect(fixture.simulatorLines(containing: "kind=install_update") == 0, "\(fixture.simulator.output)")
        // The fleet view shows the battery and the pending required update.
        let listed = try #require(try await fixture.admin.listReaders().first { $0.id == fixture.readerID })
        #expect(listed.batteryLevel == 0.4)
        #expect(listed.availableUpdate?.version == "1.1.0")
        #expect(listed.availableUpdate?.required == true)
        await fixture.stop()
    }

    @Test("a failed required update connects within 30 days of running the location's latest version, and not after")
    func thirtyDayRule() async throws {
        let fixture = try await UpdateFixture.start(serial: "MOB-30DAYS", simulatorArguments: ["--fail-updates"])
        // Day 0: the reader runs the location's latest version (1.0.0, required since yesterday).
        try await fixture.addUpdate("1.0.0", requiredAt: UpdateFixture.start - SettableClock.day)
        let (lane, _) = try await fixture.lane("Floor 1", device: "phone-1")
        let current = try await fixture.connect(lane)
        #expect(current.reader?.availableUpdate == nil)
        try await lane.disconnectReader()

        // 1.1.0 becomes required on day 1; on day 10 its install fails, and the reader still connects.
        try await fixture.addUpdate("1.1.0", requiredAt: UpdateFixture.start + SettableClock.day)
        fixture.clock.advance(by: 10 * SettableClock.day)
        let within = try await fixture.connect(lane)
        let failure = try #require(within.requiredUpdateFailure, "the connect did not report the failed update")
        #expect(failure.reason == .readerSoftwareUpdateFailed)
        #expect(failure.message.contains("30 days"), "\(failure.message)")
        #expect(within.reader?.softwareVersion == "1.0.0")
        #expect(within.reader?.availableUpdate?.version == "1.1.0")
        #expect(within.reader?.availableUpdate?.required == true)
        #expect(lane.connectionStatus == .connected)
        try await lane.disconnectReader()

        // Day 31: thirty-one days since it ran the latest version; the retried install fails and so does the connect.
        fixture.clock.advance(by: 21 * SettableClock.day)
        do {
            try await fixture.connect(lane)
            Issue.record("the connect succeeded 31 days after the reader last ran the latest version")
        } catch let error as RPCError {
            #expect(error.reason == .readerSoftwareUpdateFailed)
            #expect(error.message.contains("30 days"), "\(error.message)")
        }
        #expect(fixture.simulatorLines(containing: "update_failed serial=MOB-30DAYS") == 2, "\(fixture.simulator.output)")
        // Each failed install is in the event log, with its error code.
        var failed = ReaderGatewayV1.ListEventsRequest()
        failed.types = ["reader.software_update.failed"]
        let failures = try await fixture.admin.listEvents(failed).events
        #expect(failures.count == 2)
        #expect(failures.allSatisfy { $0.objectJson.contains("\"error_code\": \"READER_SOFTWARE_UPDATE_FAILED\"") }, "\(failures)")
        #expect(try await fixture.owner() == nil)
        #expect(lane.connectionStatus == .notConnected)
        await fixture.stop()
    }

    @Test("an optional update is reported at connect and installs on request; at its required_at it installs during connect")
    func optionalThenRequired() async throws {
        let fixture = try await UpdateFixture.start(serial: "MOB-OPTIONAL")
        try await fixture.addUpdate("1.1.0", requiredAt: UpdateFixture.start + SettableClock.hour)
        try await fixture.addUpdate("1.0.5", requiredAt: nil)
        let (lane, log) = try await fixture.lane("Floor 1", device: "phone-1")
        let optional = try await fixture.connect(lane)
        #expect(optional.reader?.availableUpdate?.version == "1.1.0")
        #expect(optional.reader?.availableUpdate?.required == false)
        #expect(await eventually { log.available.map(\.version) == ["1.1.0"] })
        #expect(log.available.first?.isRequired == false)
        #expect(log.started.isEmpty)
        #expect(fixture.simulatorLines(containing: "kind=install_update") == 0)
        let listed = try #require(try await fixture.admin.listReaders().first { $0.id == fixture.readerID })
        #expect(listed.availableUpdate?.version == "1.1.0")
        #expect(listed.availableUpdate?.required == false)
        try await lane.disconnectReader()

        // An hour and a minute later 1.1.0 is required: the connect installs it.
        fixture.clock.advance(by: SettableClock.hour + 60_000)
        let discovered = try await fixture.discover(lane)
        #expect(discovered.reader.availableUpdate?.isRequired == true)
        let required = try await lane.connectReader(discovered)
        #expect(required.reader?.softwareVersion == "1.1.0")
        #expect(log.started.map(\.version) == ["1.1.0"])
        #expect(log.started.first?.isRequired == true)
        #expect(await eventually { log.progress.last == 1 })
        await fixture.stop()
    }

    @Test("an update added while the reader is connected is reported; installAvailableUpdate installs it with progress; then there is nothing to install")
    func installAvailableUpdate() async throws {
        let fixture = try await UpdateFixture.start(serial: "MOB-INSTALL")
        let (lane, log) = try await fixture.lane("Floor 1", device: "phone-1")
        let connected = try await fixture.connect(lane)
        #expect(connected.reader?.availableUpdate == nil)
        #expect(try await lane.installAvailableUpdate() == "")
        try await fixture.addUpdate("1.2.0", requiredAt: nil)
        #expect(await eventually { log.available.map(\.version) == ["1.2.0"] })
        #expect(lane.connectedReader?.availableUpdate?.version == "1.2.0")
        #expect(try await lane.installAvailableUpdate() == "1.2.0")
        #expect(log.started.map(\.version) == ["1.2.0"])
        #expect(log.started.first?.isRequired == false)
        #expect(await eventually { log.progress.last == 1 })
        #expect(lane.connectionStatus == .connected)
        let reader = try #require(try await fixture.admin.getReader(fixture.readerID).reader)
        #expect(reader.softwareVersion == "1.2.0")
        #expect(reader.availableUpdate == nil)
        #expect(try await lane.installAvailableUpdate() == "")
        #expect(fixture.simulatorLines(containing: "kind=install_update") == 1)
        await fixture.stop()
    }

    @Test("the catalog: add, replace, list, remove, bad entries refused with what to fix")
    func catalogManagement() async throws {
        let fixture = try await UpdateFixture.start(serial: "MOB-CATALOG")
        let added = try await fixture.addUpdate("2.0.0", requiredAt: nil)
        #expect(added.addedUnixMs > 0)
        try await fixture.addUpdate("2.10.0", requiredAt: UpdateFixture.start)
        var replacement = ReaderGatewayV1.ReaderSoftwareUpdate()
        replacement.deviceType = .mobile
        replacement.version = "2.0.0"
        replacement.components = ["keys"]
        #expect(try await fixture.admin.addSoftwareUpdate(replacement).replaced)
        let listed = try await fixture.admin.listSoftwareUpdates(deviceType: .mobile)
        #expect(listed.map(\.version) == ["2.10.0", "2.0.0"])
        #expect(listed.last?.components == ["keys"])
        #expect(try await fixture.admin.listSoftwareUpdates(deviceType: .tapToPay).isEmpty)
        for (version, components, expected) in [("2.x", [String](), "dotted numbers"), ("3.0", ["bootloader"], "unknown component")] {
            var bad = ReaderGatewayV1.ReaderSoftwareUpdate()
            bad.deviceType = .mobile
            bad.version = version
            bad.components = components
            do {
                _ = try await fixture.admin.addSoftwareUpdate(bad)
                Issue.record("\(version) \(components) was accepted")
            } catch let error as RPCError {
                #expect(error.reason == .invalidRequest)
                #expect(error.message.contains(expected), "\(error.message)")
            }
        }
        try await fixture.admin.removeSoftwareUpdate(deviceType: .mobile, version: "2.0.0")
        do {
            try await fixture.admin.removeSoftwareUpdate(deviceType: .mobile, version: "2.0.0")
            Issue.record("a removed update was removed again")
        } catch let error as RPCError {
            #expect(error.reason == .softwareUpdateNotFound)
            #expect(error.code == .notFound)
        }
        // Another account sees none of it.
        let other = try await DevelopmentAccount.create(name: "other", client: fixture.harness.database.client)
        let otherAdmin = AdminClient(connection: fixture.adminConnection, secretKey: other.secretKey)
        #expect(try await otherAdmin.listSoftwareUpdates().isEmpty)
        await fixture.stop()
    }
}
