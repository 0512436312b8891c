import Foundation
import GatewayClient
import GatewayService
import GatewayTestKit
import GatewayWire
import Synchronization
import Testing

/// Tap to Pay device setup through the client library against real gateways sharing one
/// PostgreSQL: the first connect on a device runs it as a configuration update with progress
/// while the connection status stays connecting; later connects on the device, through any
/// replica, do not; an OS update sets the device up again.
@Suite("Tap to Pay device setup", .timeLimit(.minutes(5)))
struct TapToPayDeviceSetupTests {
    /// Records the update callbacks (on the main actor: the delegate is main-actor isolated), and
    /// the connection status at each progress report; the recordings are read from any task.
    final class SetupDelegate: TerminalDelegate {
        struct Seen: Sendable {
            var started: [ReaderSoftwareUpdate] = []
            var progress: [Float] = []
            var statuses: [ConnectionStatus] = []
        }
        let seen = Mutex(Seen())
        func terminal(_ terminal: TerminalClient, didStartInstallingUpdate update: ReaderSoftwareUpdate) {
            seen.withLock { $0.started.append(update) }
        }
        func terminal(_ terminal: TerminalClient, didReportReaderSoftwareUpdateProgress progress: Float) {
            let status = terminal.connectionStatus
            seen.withLock { seen in
                seen.progress.append(progress)
                seen.statuses.append(status)
            }
        }
        nonisolated var now: Seen { seen.withLock { $0 } }
        nonisolated func reset() { seen.withLock { $0 = Seen() } }
    }

    @Test("the first connect on a device sets it up as a configuration update (progress 0…1, status connecting); the next connect, through another replica, does not; an OS update sets it up again")
    func setupOncePerDeviceAndOSVersion() async throws {
        let harness = try await GatewayHarness.start()
        let (replica, replicaPort) = try await TapToPayTests.secondReplica(harness)
        let phone = try await TapToPayTests.lane(harness, port: harness.port, account: harness.account, device: "phone-1", label: "Till")
        let delegate = SetupDelegate()
        phone.client.setDelegate(delegate)
        let first = try await phone.client.connectTapToPayReader(device: .simulatedSupported, TapToPayConnectionConfiguration(locationID: phone.location))
        let setup = try #require(first.deviceSetup)
        #expect(setup.components == ["config"])
        #expect(setup.deviceType == .tapToPay)
        #expect(setup.isRequired)
        let seen = delegate.now
        #expect(seen.started.map(\.version) == [setup.version] && seen.started.first?.components == ["config"] && seen.started.first?.deviceType == .tapToPay)
        #expect(seen.progress == [0, 0.25, 0.5, 0.75, 1])
        #expect(seen.statuses.allSatisfy { $0 == .connecting }, "\(seen.statuses)")
        #expect(phone.client.connectionStatus == .connected)
        try await phone.client.closeSession()
        phone.connection.close()

        // The same device again, another session through the other replica: no setup.
        let again = try await TapToPayTests.lane(harness, port: replicaPort, account: harness.account, device: "phone-1", label: "Till")
        let againDelegate = SetupDelegate()
        again.client.setDelegate(againDelegate)
        let second = try await again.client.connectTapToPayReader(device: .simulatedSupported, TapToPayConnectionConfiguration(locationID: again.location))
        #expect(second.deviceSetup == nil)
        #expect(againDelegate.now.started.isEmpty)
        #expect(againDelegate.now.progress.isEmpty)

        // An OS update invalidates the setup: the next connect runs it again, once.
        let updated = TapToPayDevice(model: TapToPayDevice.simulatedSupported.model, osVersion: "17.5")
        let third = try await again.client.connectTapToPayReader(device: updated, TapToPayConnectionConfiguration(locationID: again.location))
        #expect(third.deviceSetup?.version.contains("17.5") == true)
        #expect(againDelegate.now.progress == [0, 0.25, 0.5, 0.75, 1])
        let fourth = try await again.client.connectTapToPayReader(device: updated, TapToPayConnectionConfiguration(locationID: again.location))
        #expect(fourth.deviceSetup == nil)
        #expect(againDelegate.now.started.count == 1)

        // Another device of the same account is set up on its own.
        let other = try await TapToPayTests.lane(harness, port: harness.port, account: harness.account, device: "phone-2", label: "Till 2")
        #expect(try await other.client.connectTapToPayReader(device: .simulatedSupported, TapToPayConnectionConfiguration(locationID: other.location)).deviceSetup != nil)
        try await again.client.closeSession()
        try await other.client.closeSession()
        again.connection.close()
        other.connection.close()
        try await replica.stop()
        await harness.stop()
    }

    @Test("a reconnect after the background does not set the device up again")
    func reconnectSkipsSetup() async throws {
        let harness = try await GatewayHarness.start(offlineBound: .seconds(300))
        let phone = try await TapToPayTests.lane(harness, port: harness.port, account: harness.account, device: "phone-1", label: "Till")
        let delegate = SetupDelegate()
        phone.client.setDelegate(delegate)
        let log = TapToPayTests.EventLog(phone.client)
        try await phone.client.connectTapToPayReader(device: .simulatedSupported, TapToPayConnectionConfiguration(locationID: phone.location))
        #expect(delegate.now.started.count == 1)
        phone.client.applicationDidEnterBackground()
        phone.client.applicationWillEnterForeground()
        #expect(await eventually { log.count(where: TapToPayTests.isSucceeded) == 1 })
        #expect(delegate.now.started.count == 1)
        #expect(delegate.now.progress.count == 5)
        try await phone.client.closeSession()
        log.task.cancel()
        phone.connection.close()
        await harness.stop()
    }
}
