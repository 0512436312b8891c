import Foundation
import GatewayCommandLine
import GatewayTestSupport
import Testing

/// The README's "A phone lane with a simulated WisePad 3" walkthrough, command by command, as
/// real processes against a real `reader-gateway`: each program prints what the README says.
@Suite("the README Bluetooth walkthrough", .serialized)
struct ReadmeBluetoothWalkthroughTests {
    @Test func wisePad3OnAPhoneLane() async throws {
        // A long offline bound: the reader's reconnect window outlasts a loaded machine.
        let readme = try await WalkthroughGateway.start(["--reader-offline-bound", "300s"])
        defer { readme.discard() }
        let (ca, secretKey, gatewayAddress, environment) = (readme.ca, readme.secretKey, readme.address, readme.environment)
        let create = try await ChildProcess.start("gatewayctl", ["locations", "create", "Front Store"], environment: environment)
        #expect(await create.waitForExit() == 0, "stderr: \(create.standardError)")
        let location = try #require(create.output.first)

        // gatewayctl updates add for bbpos_wisepad3, required since a date that has passed.
        let update = try await ChildProcess.start("gatewayctl", [
            "updates", "add", "--device-type", "bbpos_wisepad3", "--version", "2.5.0", "--components", "firmware",
            "--duration", "less_than_one_minute", "--required-at", "2026-01-01T00:00:00Z",
        ], environment: environment)
        #expect(await update.waitForExit() == 0, "stderr: \(update.standardError)")
        #expect(update.output.first == "added bbpos_wisepad3 2.5.0", "\(update.output)")

        let phone = try await ChildProcess.start("pos-lane", [
            "--gateway", gatewayAddress, "--ca", ca, "--secret-key", secretKey, "--location", location,
            "--lane", "Phone 2", "--pos-device-id", "phone-2", "--bluetooth-readers", "wisepad3:WPC3-0001,m2:STRM2-0002",
        ])
        defer { phone.terminate() }
        #expect(await phone.waitForLine { $0.hasPrefix("session ") } != nil, "stderr: \(phone.standardError)")

        // bt-scan: both readers nearby, by serial.
        phone.send("bt-scan 1")
        let scanned = try #require(await phone.waitForLine { $0.hasPrefix("bluetooth_readers ") }, "\(phone.output)")
        #expect(OutputLine.parse(scanned)?["serials"] == "STRM2-0002,WPC3-0001")
        #expect(await phone.waitForLine { $0.hasPrefix("bluetooth_scan_done ") } != nil, "\(phone.output)")

        // bt-connect WPC3-0001: the same passkey on both sides, the required update installs
        // with progress, then connected at the location.
        phone.send("bt-connect WPC3-0001")
        let pairingLine = try #require(await phone.waitForLine { $0.hasPrefix("pairing ") }, "\(phone.output)")
        let pairing = try #require(OutputLine.parse(pairingLine))
        let passkey = try #require(pairing["passkey"])
        #expect(passkey.count == 6 && passkey.allSatisfy(\.isNumber))
        #expect(pairing["on_reader"] == passkey)
        let connectedLine = try #require(await phone.waitForLine { $0.hasPrefix("bluetooth_connected ") }, "\(phone.output)")
        let connected = try #require(OutputLine.parse(connectedLine))
        #expect(connected["serial"] == "WPC3-0001")
        #expect(connected["location"] == location)
        #expect(connected["device_type"] == "bbpos_wisepad3")
        let reader = try #require(connected["reader_id"])
        let startedLine = try #require(await phone.waitForLine { $0.hasPrefix("update_started ") }, "\(phone.output)")
        let updateStarted = try #require(OutputLine.parse(startedLine))
        #expect(updateStarted["reader_id"] == reader)
        #expect(updateStarted["version"] == "2.5.0")
        #expect(updateStarted["required"] == "true")
        #expect(await phone.waitForLine { OutputLine.parse($0)?["progress"] == "1.0" } != nil, "\(phone.output)")
        let progress = phone.output.filter { $0.hasPrefix("update_progress ") }.compactMap { OutputLine.parse($0) }
        #expect(progress.map { $0["progress"] ?? "" } == ["0.0", "0.25", "0.5", "0.75", "1.0"], "\(phone.output)")
        #expect(progress.allSatisfy { $0["reader_id"] == reader }, "\(phone.output)")

        // collect 1250, the card, confirm.
        phone.send("collect 1250")
        #expect(await phone.waitForLine { $0.hasPrefix("collecting ") } != nil)
        phone.send("bt-card WPC3-0001")
        let collected = try #require(await phone.waitForLine { $0.hasPrefix("collected ") }, "\(phone.output)")
        #expect(OutputLine.parse(collected)?["brand"] == "visa")
        phone.send("confirm")
        let confirmed = try #require(await phone.waitForLine { $0.hasPrefix("confirmed ") }, "\(phone.output)")
        #expect(OutputLine.parse(confirmed)?["status"] == "succeeded")
        #expect(OutputLine.parse(confirmed)?["amount"] == "1250")

        // Out of range and back: the reader reconnects by itself, the lane keeps it.
        phone.send("bt-range WPC3-0001 out")
        let started = try #require(await phone.waitForLine { $0.hasPrefix("bluetooth_reconnect_started ") }, "\(phone.output)")
        #expect(OutputLine.parse(started)?["reason"] == "bluetooth_signal_lost")
        phone.send("bt-range WPC3-0001 in")
        #expect(await phone.waitForLine { $0.hasPrefix("bluetooth_reconnect_succeeded ") } != nil, "\(phone.output)")

        // gatewayctl readers list: the WisePad 3 at the location; history: the link's end and why.
        let list = try await ChildProcess.start("gatewayctl", ["readers", "list"], environment: environment)
        #expect(await list.waitForExit() == 0)
        let row = try #require(list.output.first { $0.hasPrefix(reader) }, "\(list.output)")
        #expect(row.contains("bbpos_wisepad3") && row.contains(location), "\(row)")
        // It runs the required version now, and nothing is pending.
        #expect(row.contains(" 2.5.0 ") && !row.contains("(required)"), "\(row)")
        let history = try await ChildProcess.start("gatewayctl", ["history", reader], environment: environment)
        #expect(await history.waitForExit() == 0)
        #expect(history.output.contains { $0.contains("mobile_link_ended: bluetooth_signal_lost, reconnecting") }, "\(history.output)")
        #expect(history.output.contains { $0.contains("connected") && $0.contains("Phone 2") }, "\(history.output)")

        phone.send("quit")
        #expect(await phone.waitForExit() == 0)
        #expect(await readme.stop() == 0)
    }
}
