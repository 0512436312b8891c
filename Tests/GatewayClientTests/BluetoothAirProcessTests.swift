import Foundation
import GatewayCommandLine
import GatewayTestKit
import GatewayTestSupport
import Testing

/// reader-sim hosting Bluetooth readers (`--bluetooth-air PATH`) and pos-lane reaching them
/// through that socket (`--bluetooth-air PATH`), against a real `reader-gateway` on PostgreSQL:
/// every process real, every step waited for by the line it prints. The first test runs the
/// README's "The same WisePad 3, hosted by reader-sim" steps.
@Suite("reader-sim's Bluetooth readers on a pos-lane", .serialized)
struct BluetoothAirProcessTests {
    static func airPath() -> String {
        NSTemporaryDirectory() + "rg-air-\(UInt32.random(in: 0...UInt32.max)).sock"
    }

    @Test("a WisePad 3 in reader-sim: scanned, paired, connected with a required update, a payment, battery drain seen in the fleet view, the 24 h reboot, out of range, powered off, critically low battery")
    func wisePad3HostedByReaderSim() async throws {
        let gateway = try await WalkthroughGateway.start(["--reader-offline-bound", "300s"])
        defer { gateway.discard() }
        let create = try await ChildProcess.start("gatewayctl", ["locations", "create", "Floor"], environment: gateway.environment)
        #expect(await create.waitForExit() == 0, "stderr: \(create.standardError)")
        let location = try #require(create.output.first)
        let update = try await ChildProcess.start("gatewayctl", [
            "updates", "add", "--device-type", "bbpos_wisepad3", "--version", "2.5.0", "--components", "firmware",
            "--duration", "less_than_one_minute", "--required-at", "2026-01-01T00:00:00Z",
        ], environment: gateway.environment)
        #expect(await update.waitForExit() == 0, "stderr: \(update.standardError)")

        let path = Self.airPath()
        let sim = try await ChildProcess.start("reader-sim", [
            "--bluetooth-air", path, "--bluetooth-readers", "wisepad3:WPC3-0001", "--update-duration", "200ms", "--battery-drain", "0.02",
        ])
        defer { sim.terminate() }
        let started = try #require(await sim.waitForLine { $0.hasPrefix("started ") }, "stderr: \(sim.standardError)")
        #expect(OutputLine.parse(started)?["serials"] == "WPC3-0001")

        let phone = try await ChildProcess.start("pos-lane", [
            "--gateway", gateway.address, "--ca", gateway.ca, "--secret-key", gateway.secretKey, "--location", location,
            "--lane", "Floor Phone", "--pos-device-id", "phone-7", "--bluetooth-air", path,
        ])
        defer { phone.terminate() }
        #expect(await phone.waitForLine { $0.hasPrefix("bluetooth_air ") } != nil, "stderr: \(phone.standardError)")
        #expect(await sim.waitForLine { $0 == "device_arrived device=phone-7" } != nil, "\(sim.output)")

        // Scan: the reader advertises through the socket.
        phone.send("bt-scan 1")
        let scanned = try #require(await phone.waitForLine { $0.hasPrefix("bluetooth_readers ") }, "\(phone.output)")
        #expect(OutputLine.parse(scanned)?["serials"] == "WPC3-0001")
        #expect(await phone.waitForLine { $0.hasPrefix("bluetooth_scan_done ") } != nil, "\(phone.output)")

        // Pair: the reader (reader-sim) and the phone show the same passkey; the user confirms on the reader.
        phone.send("bt-connect WPC3-0001")
        let shown = try #require(await sim.waitForLine { $0.hasPrefix("pairing ") }, "\(sim.output)")
        let passkey = try #require(OutputLine.parse(shown)?["passkey"])
        #expect(OutputLine.parse(shown)?["device"] == "phone-7")
        let onPhone = try #require(await phone.waitForLine { $0.hasPrefix("pairing ") }, "\(phone.output)")
        #expect(OutputLine.parse(onPhone)?["passkey"] == passkey)
        sim.send("confirm WPC3-0001")

        // The required update installs during the connect, its progress seen on both sides.
        let connectedLine = try #require(await phone.waitForLine(timeout: .seconds(30)) { $0.hasPrefix("bluetooth_connected ") }, "\(phone.output)")
        let connected = try #require(OutputLine.parse(connectedLine))
        #expect(connected["location"] == location && connected["device_type"] == "bbpos_wisepad3")
        let reader = try #require(connected["reader_id"])
        #expect(await phone.waitForLine { OutputLine.parse($0)?["progress"] == "1.0" } != nil, "\(phone.output)")
        let phoneProgress = phone.output.filter { $0.hasPrefix("update_progress ") }.compactMap { OutputLine.parse($0)?["progress"] }
        #expect(phoneProgress == ["0.0", "0.25", "0.5", "0.75", "1.0"], "\(phone.output)")
        #expect(await sim.waitForLine { $0 == "updated serial=WPC3-0001 version=2.5.0" } != nil, "\(sim.output)")
        let simProgress = sim.output.filter { $0.hasPrefix("update_progress ") }.compactMap { OutputLine.parse($0)?["progress"] }
        #expect(simProgress == ["0.0", "0.25", "0.5", "0.75", "1.0"], "\(sim.output)")
        #expect(sim.output.contains("bluetooth_connected serial=WPC3-0001 device=phone-7"), "\(sim.output)")

        // A payment: the customer inserts the card in the reader reader-sim hosts.
        phone.send("collect 1250")
        #expect(await sim.waitForLine { $0.hasPrefix("command serial=WPC3-0001 kind=collect") } != nil, "\(sim.output)")
        sim.send("present WPC3-0001 mastercard 4444")
        let collected = try #require(await phone.waitForLine { $0.hasPrefix("collected ") }, "\(phone.output)")
        #expect(OutputLine.parse(collected)?["last4"] == "4444")
        phone.send("confirm")
        let confirmed = try #require(await phone.waitForLine { $0.hasPrefix("confirmed ") }, "\(phone.output)")
        #expect(OutputLine.parse(confirmed)?["status"] == "succeeded" && OutputLine.parse(confirmed)?["amount"] == "1250", "\(confirmed)")

        // Ten simulated hours drain 0.02 an hour, and the reader stays connected.
        var mark = sim.output.count
        sim.send("hours 10")
        let drained = try #require(await sim.waitForLine(after: mark) { $0.hasPrefix("status serial=WPC3-0001") }, "\(sim.output)")
        let level = try #require(OutputLine.parse(drained)?["battery"].flatMap(Float.init))
        #expect(abs(level - 0.67) < 0.001, "\(drained)")
        #expect(OutputLine.parse(drained)?["connected_to"] == "phone-7", "\(drained)")
        // The phone reports it on its link's next heartbeat: the fleet view shows 67 %.
        var fleetRow = ""
        for _ in 0..<100 where !fleetRow.contains(" 67% ") {
            let list = try await ChildProcess.start("gatewayctl", ["readers", "list"], environment: gateway.environment)
            #expect(await list.waitForExit() == 0, "stderr: \(list.standardError)")
            fleetRow = list.output.first { $0.hasPrefix(reader) } ?? ""
        }
        #expect(fleetRow.contains(" 67% "), "\(fleetRow)")

        // 24 hours up: the reader reboots itself (security reboot) and the phone reconnects it.
        mark = sim.output.count
        var phoneMark = phone.output.count
        sim.send("hours 15")
        #expect(await sim.waitForLine(after: mark) { $0 == "rebooted serial=WPC3-0001 reason=security_reboot" } != nil, "\(sim.output)")
        let rebootStart = try #require(await phone.waitForLine(after: phoneMark) { $0.hasPrefix("bluetooth_reconnect_started ") }, "\(phone.output)")
        #expect(OutputLine.parse(rebootStart)?["reason"] == "security_reboot")
        #expect(await phone.waitForLine(after: phoneMark) { $0.hasPrefix("bluetooth_reconnect_succeeded ") } != nil, "\(phone.output)")

        // Out of range, then back.
        phoneMark = phone.output.count
        sim.send("range WPC3-0001 out")
        let lost = try #require(await phone.waitForLine(after: phoneMark) { $0.hasPrefix("bluetooth_reconnect_started ") }, "\(phone.output)")
        #expect(OutputLine.parse(lost)?["reason"] == "bluetooth_signal_lost")
        sim.send("range WPC3-0001 in")
        #expect(await phone.waitForLine(after: phoneMark) { $0.hasPrefix("bluetooth_reconnect_succeeded ") } != nil, "\(phone.output)")

        // Powered off, then on.
        phoneMark = phone.output.count
        sim.send("power WPC3-0001 off")
        let off = try #require(await phone.waitForLine(after: phoneMark) { $0.hasPrefix("bluetooth_reconnect_started ") }, "\(phone.output)")
        #expect(OutputLine.parse(off)?["reason"] == "powered_off")
        sim.send("power WPC3-0001 on")
        #expect(await phone.waitForLine(after: phoneMark) { $0.hasPrefix("bluetooth_reconnect_succeeded ") } != nil, "\(phone.output)")

        // The battery runs critically low: the reader powers down; charged and on, it is back.
        phoneMark = phone.output.count
        mark = sim.output.count
        sim.send("battery WPC3-0001 0.04")
        #expect(await sim.waitForLine(after: mark) { $0 == "powered_off serial=WPC3-0001 reason=critically_low_battery" } != nil, "\(sim.output)")
        let low = try #require(await phone.waitForLine(after: phoneMark) { $0.hasPrefix("bluetooth_reconnect_started ") }, "\(phone.output)")
        #expect(OutputLine.parse(low)?["reason"] == "critically_low_battery")
        sim.send("battery WPC3-0001 0.8")
        sim.send("power WPC3-0001 on")
        #expect(await phone.waitForLine(after: phoneMark) { $0.hasPrefix("bluetooth_reconnect_succeeded ") } != nil, "\(phone.output)")
        let reasons = sim.output.filter { $0.hasPrefix("bluetooth_disconnected ") }.compactMap { OutputLine.parse($0)?["reason"] }
        #expect(reasons == ["security_reboot", "bluetooth_signal_lost", "powered_off", "critically_low_battery"], "\(sim.output)")

        // The fleet's history says why each link ended.
        let history = try await ChildProcess.start("gatewayctl", ["history", reader], environment: gateway.environment)
        #expect(await history.waitForExit() == 0, "stderr: \(history.standardError)")
        for reason in ["security_reboot", "bluetooth_signal_lost", "powered_off", "critically_low_battery"] {
            #expect(history.output.contains { $0.contains("mobile_link_ended: \(reason), reconnecting") }, "\(reason): \(history.output)")
        }
        let list = try await ChildProcess.start("gatewayctl", ["readers", "list"], environment: gateway.environment)
        #expect(await list.waitForExit() == 0)
        let row = try #require(list.output.first { $0.hasPrefix(reader) }, "\(list.output)")
        #expect(row.contains("bbpos_wisepad3") && row.contains(" 2.5.0 "), "\(row)")

        phone.send("quit")
        #expect(await phone.waitForExit() == 0)
        sim.send("quit")
        #expect(await sim.waitForExit() == 0)
        #expect(await gateway.stop() == 0)
    }

    @Test("a failed required update fails the connect and the retry installs it; a phone that dies releases the reader (bluetooth_signal_lost); bad socket input is answered and printed, and serving goes on; proximity, and a second phone process that no longer hears the connected reader")
    func failedUpdateAndAPhoneThatDies() async throws {
        let gateway = try await WalkthroughGateway.start(["--reader-offline-bound", "300s"])
        defer { gateway.discard() }
        let create = try await ChildProcess.start("gatewayctl", ["locations", "create", "Floor"], environment: gateway.environment)
        #expect(await create.waitForExit() == 0, "stderr: \(create.standardError)")
        let location = try #require(create.output.first)
        let update = try await ChildProcess.start("gatewayctl", [
            "updates", "add", "--device-type", "stripe_m2", "--version", "2.5.0", "--components", "firmware",
            "--duration", "less_than_one_minute", "--required-at", "2026-01-01T00:00:00Z",
        ], environment: gateway.environment)
        #expect(await update.waitForExit() == 0, "stderr: \(update.standardError)")

        let path = Self.airPath()
        let sim = try await ChildProcess.start("reader-sim", ["--bluetooth-air", path, "--device-type", "stripe_m2", "--serial", "STRM2-0001", "--update-duration", "100ms"])
        defer { sim.terminate() }
        #expect(await sim.waitForLine { $0.hasPrefix("started ") } != nil, "stderr: \(sim.standardError)")
        let phone = try await ChildProcess.start("pos-lane", [
            "--gateway", gateway.address, "--ca", gateway.ca, "--secret-key", gateway.secretKey, "--location", location,
            "--lane", "Floor Phone", "--pos-device-id", "phone-8", "--bluetooth-air", path,
        ])
        defer { phone.terminate() }
        #expect(await phone.waitForLine { $0.hasPrefix("bluetooth_air ") } != nil, "stderr: \(phone.standardError)")

        // Proximity: the closest reader, twice (its serial, then with the battery it read).
        phone.send("bt-proximity")
        let closest = try #require(await phone.waitForLine { $0.hasPrefix("bluetooth_closest ") && OutputLine.parse($0)?["battery"]?.isEmpty == false }, "\(phone.output)")
        #expect(OutputLine.parse(closest)?["serial"] == "STRM2-0001" && OutputLine.parse(closest)?["battery"] == "0.87", "\(closest)")
        #expect(phone.output.filter { $0.hasPrefix("bluetooth_closest ") }.count == 2, "\(phone.output)")

        // The install fails halfway: a reader that never ran the required version cannot connect.
        sim.send("fail-update STRM2-0001")
        #expect(await sim.waitForLine { $0 == "update_will_fail serial=STRM2-0001" } != nil, "\(sim.output)")
        phone.send("bt-scan 1")
        #expect(await phone.waitForLine { $0.hasPrefix("bluetooth_scan_done ") } != nil, "\(phone.output)")
        phone.send("bt-connect STRM2-0001")
        let failed = try #require(await sim.waitForLine { $0.hasPrefix("update_failed ") }, "\(sim.output)")
        #expect(OutputLine.parse(failed)?["reason"] == "READER_SOFTWARE_UPDATE_FAILED", "\(failed)")
        #expect(OutputLine.parse(failed)?["version"] == "2.5.0", "\(failed)")
        let refused = try #require(await phone.waitForLine(timeout: .seconds(30)) { $0.hasPrefix("error ") }, "\(phone.output)")
        #expect(OutputLine.parse(refused)?["reason"] == "READER_SOFTWARE_UPDATE_FAILED", "\(refused)")
        #expect(!phone.output.contains { $0.hasPrefix("bluetooth_connected ") }, "\(phone.output)")

        // Retried: it installs, and the reader connects.
        var phoneMark = phone.output.count
        phone.send("bt-scan 1")
        #expect(await phone.waitForLine(after: phoneMark) { $0.hasPrefix("bluetooth_scan_done ") } != nil, "\(phone.output)")
        phoneMark = phone.output.count
        phone.send("bt-connect STRM2-0001")
        #expect(await phone.waitForLine(after: phoneMark, timeout: .seconds(30)) { $0.hasPrefix("bluetooth_connected ") } != nil, "\(phone.output)")
        #expect(await sim.waitForLine { $0 == "updated serial=STRM2-0001 version=2.5.0" } != nil, "\(sim.output)")

        // A second phone in the same air, in its own process, no longer hears the connected reader.
        let second = try await ChildProcess.start("pos-lane", [
            "--gateway", gateway.address, "--ca", gateway.ca, "--secret-key", gateway.secretKey, "--location", location,
            "--lane", "Other Phone", "--pos-device-id", "phone-9", "--bluetooth-air", path,
        ])
        defer { second.terminate() }
        #expect(await second.waitForLine { $0.hasPrefix("bluetooth_air ") } != nil, "stderr: \(second.standardError)")
        second.send("bt-scan 0.2")
        let heard = try #require(await second.waitForLine { $0.hasPrefix("bluetooth_scan_done ") }, "\(second.output)")
        #expect(OutputLine.parse(heard)?["count"] == "0", "\(second.output)")
        second.send("quit")
        #expect(await second.waitForExit() == 0)

        // The phone's process dies: reader-sim sees the device leave and the link end as a lost signal.
        let mark = sim.output.count
        kill(phone.pid, SIGKILL)
        #expect(await sim.waitForLine(after: mark) { $0 == "device_left device=phone-8" } != nil, "\(sim.output)")
        let ended = try #require(await sim.waitForLine(after: mark) { $0.hasPrefix("bluetooth_disconnected ") }, "\(sim.output)")
        #expect(OutputLine.parse(ended)?["reason"] == "bluetooth_signal_lost", "\(ended)")
        let statusMark = sim.output.count
        sim.send("status STRM2-0001")
        let status = try #require(await sim.waitForLine(after: statusMark) { $0.hasPrefix("status ") }, "\(sim.output)")
        #expect(OutputLine.parse(status)?["connected_to"] == "", "\(status)")

        // Bad input on the socket: answered, printed, and the simulator keeps serving.
        let badMark = sim.output.count
        let answer = try await onOwnThread { () throws -> String in try Self.probe(path, [0, 0, 0, 1, 99]) }
        #expect(answer.contains("message type 99 is unknown"), "\(answer)")
        let printed = try #require(await sim.waitForLine(after: badMark) { $0.hasPrefix("bad_input ") }, "\(sim.output)")
        #expect(printed.contains("message type 99 is unknown"), "\(printed)")

        // Bad stdin gets a precise error and the simulator carries on.
        let errorMark = sim.output.count
        sim.send("drop STRM2-0001")
        let refusedCommand = try #require(await sim.waitForLine(after: errorMark) { $0.hasPrefix("error ") }, "\(sim.output)")
        #expect(refusedCommand.contains("for smart readers"), "\(refusedCommand)")
        sim.send("quit")
        #expect(await sim.waitForExit() == 0)
        #expect(await gateway.stop() == 0)
    }
}

extension BluetoothAirProcessTests {
    /// Connects to the air at `path` as a device, then sends `bytes` raw; the air's answer to
    /// them (its bytes, as text).
    static func probe(_ path: String, _ bytes: [UInt8]) throws -> String {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in path.utf8.enumerated() { raw[index] = byte }
        }
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard connected == 0 else { throw ProbeFailed(description: "could not connect to \(path): errno \(errno)") }
        // hello (type 1) naming the device "probe", then the bytes.
        let hello: [UInt8] = [0, 0, 0, 8, 1, 0, 5] + Array("probe".utf8)
        let sent = (hello + bytes).withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        guard sent == hello.count + bytes.count else { throw ProbeFailed(description: "could not write to \(path)") }
        // The welcome (5 bytes), then the failure frame.
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        func needed() -> Int {
            guard received.count >= 9 else { return 9 }
            return 9 + received[5..<9].reduce(0) { $0 << 8 | Int($1) }
        }
        while received.count < needed() {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { break }
            received += buffer[0..<count]
        }
        return String(decoding: received, as: UTF8.self)
    }

    struct ProbeFailed: Error, CustomStringConvertible { var description: String }
}

extension ChildProcess {
    /// Waits for a stdout line after the first `mark` lines matching `predicate` (bounded by `timeout`).
    func waitForLine(after mark: Int, timeout: Duration = .seconds(10), where predicate: (String) -> Bool) async -> String? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let line = output.dropFirst(mark).first(where: predicate) { return line }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return output.dropFirst(mark).first(where: predicate)
    }
}
