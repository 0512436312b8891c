import Foundation
import GatewayCommandLine
import GatewayTestSupport
import Testing

/// The README's walkthrough ("two lanes, one reader"), command by command, as real
/// processes against a real `reader-gateway`: each program prints what the README says
/// it prints. The gateway runs on the test run's PostgreSQL instead of its embedded
/// default, so the account comes from `gatewayctl accounts create`.
@Suite("the README walkthrough", .serialized)
struct ReadmeWalkthroughTests {
    @Test func twoLanesOneReader() async throws {
        let readme = try await WalkthroughGateway.start()
        defer { readme.discard() }
        let (ca, secretKey, gatewayAddress, environment) = (readme.ca, readme.secretKey, readme.address, readme.environment)

        // gatewayctl locations create "Front Store"   # prints tml_...
        let create = try await ChildProcess.start("gatewayctl", ["locations", "create", "Front Store"], environment: environment)
        #expect(await create.waitForExit() == 0, "stderr: \(create.standardError)")
        #expect(create.output.count == 1, "prints one line: \(create.output)")
        let location = try #require(create.output.first)
        #expect(location.hasPrefix("tml_") && location.dropFirst(4).allSatisfy { $0.isLetter || $0.isNumber }, "not a location id alone: \(location)")
        // With --json, the whole location.
        let createJSON = try await ChildProcess.start("gatewayctl", ["--json", "locations", "create", "Back Store"], environment: environment)
        #expect(await createJSON.waitForExit() == 0)
        let created = try JSONSerialization.jsonObject(with: Data(createJSON.output.joined(separator: "\n").utf8)) as? [String: Any]
        #expect((created?["id"] as? String)?.hasPrefix("tml_") == true)
        #expect(created?["display_name"] as? String == "Back Store")

        // reader-sim ... --serial WSC513105011295: not registered yet, it prints its code.
        let simulator = try await ChildProcess.start("reader-sim", ["--gateway", gatewayAddress, "--ca", ca, "--serial", "WSC513105011295", "--collect-duration", "60s"])
        defer { simulator.terminate() }
        let codeLine = try #require(await simulator.waitForLine { $0.hasPrefix("registration_code serial=WSC513105011295 code=") }, "\(simulator.output)")
        let code = try #require(OutputLine.parse(codeLine)?["code"])

        // gatewayctl readers register --code ... : the reader hears at once, prints registered and online.
        let register = try await ChildProcess.start(
            "gatewayctl", ["readers", "register", "--code", code, "--label", "Counter 1", "--location", location], environment: environment
        )
        #expect(await register.waitForExit() == 0, "stderr: \(register.standardError)")
        let registeredRow = try #require(register.output.first { $0.contains("Counter 1") }, "\(register.output)")
        #expect(registeredRow.contains(" online "), "registered as: \(registeredRow)")
        let reader = try #require(registeredRow.split(separator: " ").first.map(String.init))
        #expect(reader.hasPrefix("tmr_"))
        #expect(await simulator.waitForLine { $0.hasPrefix("registered ") && $0.contains("reader_id=\(reader)") } != nil)
        #expect(await simulator.waitForLine { $0.hasPrefix("online ") } != nil)
        let list = try await ChildProcess.start("gatewayctl", ["readers", "list"], environment: environment)
        #expect(await list.waitForExit() == 0)
        #expect(list.output.contains { $0.hasPrefix(reader) && $0.contains(" online ") }, "\(list.output)")

        // Two lanes, each minting its own connection token from the secret key.
        func lane(_ label: String, _ device: String) async throws -> ChildProcess {
            try await ChildProcess.start("pos-lane", [
                "--gateway", gatewayAddress, "--ca", ca, "--secret-key", secretKey, "--location", location,
                "--lane", label, "--pos-device-id", device,
            ])
        }
        let lane1 = try await lane("Lane 1", "pos-1")
        defer { lane1.terminate() }
        let lane2 = try await lane("Lane 2", "pos-2")
        defer { lane2.terminate() }
        #expect(await lane1.waitForLine { $0.hasPrefix("session ") } != nil, "stderr: \(lane1.standardError)")
        #expect(await lane2.waitForLine { $0.hasPrefix("session ") } != nil, "stderr: \(lane2.standardError)")

        // Lane 1: discover, connect --fail-if-in-use: it owns the reader (generation 1).
        lane1.send("discover")
        #expect(await lane1.waitForLine { $0.hasPrefix("reader ") && $0.contains("reader_id=\(reader)") } != nil)
        lane1.send("connect \(reader) --fail-if-in-use")
        let connected1 = try #require(await lane1.waitForLine { $0.hasPrefix("connected ") }, "\(lane1.output)")
        #expect(OutputLine.parse(connected1)?["generation"] == "1")
        // collect 1999: the reader is mid-transaction.
        lane1.send("collect 1999")
        #expect(await simulator.waitForLine { $0.hasPrefix("command ") && $0.contains("kind=collect") } != nil)

        // Lane 2: discover, connect --fail-if-in-use: busy, and Lane 1's collect goes on.
        lane2.send("discover")
        #expect(await lane2.waitForLine { $0.hasPrefix("reader ") && $0.contains("reader_id=\(reader)") } != nil)
        lane2.send("connect \(reader) --fail-if-in-use")
        #expect(await lane2.waitForLine { $0.hasPrefix("busy ") } != nil, "\(lane2.output)")
        // connect: Lane 2 takes the reader (generation 2).
        lane2.send("connect \(reader)")
        let connected2 = try #require(await lane2.waitForLine { $0.hasPrefix("connected ") }, "\(lane2.output)")
        #expect(OutputLine.parse(connected2)?["generation"] == "2")
        #expect(OutputLine.parse(connected2)?["replaced_other_session"] == "true")

        // Lane 1 prints disconnected reason=replaced taken_by_lane="Lane 2", then the collect's error.
        let disconnected = try #require(await lane1.waitForLine { $0.hasPrefix("disconnected ") }, "\(lane1.output)")
        #expect(OutputLine.parse(disconnected)?["reason"] == "replaced")
        #expect(OutputLine.parse(disconnected)?["taken_by_lane"] == "Lane 2")
        let failed = try #require(await lane1.waitForLine { $0.hasPrefix("error ") && $0.contains("command=collect") }, "\(lane1.output)")
        #expect(OutputLine.parse(failed)?["reason"] == "READER_CONNECTED_TO_ANOTHER_SESSION")
        #expect(lane1.output.firstIndex(of: disconnected)! < lane1.output.firstIndex(of: failed)!)

        // gatewayctl owners --location: Lane 2 owns it; history: connected → refused_busy → replaced, newest first.
        let owners = try await ChildProcess.start("gatewayctl", ["owners", "--location", location], environment: environment)
        #expect(await owners.waitForExit() == 0)
        #expect(owners.output.first?.hasPrefix("READER ") == true)
        let row = try #require(owners.output.first { $0.hasPrefix(reader) }, "\(owners.output)")
        #expect(row.contains("Lane 2") && row.contains("pos-2"), "\(row)")
        let history = try await ChildProcess.start("gatewayctl", ["history", reader], environment: environment)
        #expect(await history.waitForExit() == 0)
        let changes = history.output.dropFirst().compactMap { line in
            ["replaced", "refused_busy", "connected"].first { line.contains("  \($0)  ") }
        }
        #expect(changes == ["replaced", "refused_busy", "connected"], "\(history.output)")

        lane1.send("quit")
        lane2.send("quit")
        simulator.send("quit")
        #expect(await lane1.waitForExit() == 0)
        #expect(await lane2.waitForExit() == 0)
        #expect(await simulator.waitForExit() == 0)
        #expect(await readme.stop() == 0)
    }

    /// "Tap to Pay on a phone": pos-lane as the phone, against a real gateway.
    @Test func tapToPayOnAPhone() async throws {
        let readme = try await WalkthroughGateway.start()
        defer { readme.discard() }
        let (ca, secretKey, gatewayAddress, environment) = (readme.ca, readme.secretKey, readme.address, readme.environment)
        let create = try await ChildProcess.start("gatewayctl", ["locations", "create", "Front Store"], environment: environment)
        #expect(await create.waitForExit() == 0, "stderr: \(create.standardError)")
        let location = try #require(create.output.first)

        let phone = try await ChildProcess.start("pos-lane", [
            "--gateway", gatewayAddress, "--ca", ca, "--secret-key", secretKey, "--location", location,
            "--lane", "Phone 1", "--pos-device-id", "phone-1",
        ])
        defer { phone.terminate() }
        #expect(await phone.waitForLine { $0.hasPrefix("session ") } != nil, "stderr: \(phone.standardError)")

        // tap-to-pay iPhone10,6 17.4: not a supported device.
        phone.send("tap-to-pay iPhone10,6 17.4")
        let unsupported = try #require(await phone.waitForLine { $0.hasPrefix("error ") }, "\(phone.output)")
        #expect(OutputLine.parse(unsupported)?["reason"] == "TAP_TO_PAY_UNSUPPORTED_DEVICE")
        // tap-to-pay: registered at the location, terms accepted, one account on the phone.
        phone.send("tap-to-pay")
        let connectedLine = try #require(await phone.waitForLine { $0.hasPrefix("tap_to_pay_connected ") }, "\(phone.output)")
        let connected = try #require(OutputLine.parse(connectedLine))
        #expect(connected["serial"] == "TTP-PHONE-1")
        #expect(connected["merchant"] == "Front Store")
        #expect(connected["accounts_in_window"] == "1")
        #expect(connected["terms_accepted_now"] == "true")
        let reader = try #require(connected["reader_id"])
        // collect 1250, tap, confirm.
        phone.send("collect 1250")
        #expect(await phone.waitForLine { $0.hasPrefix("collecting ") } != nil)
        phone.send("tap")
        let collected = try #require(await phone.waitForLine { $0.hasPrefix("collected ") }, "\(phone.output)")
        #expect(OutputLine.parse(collected)?["brand"] == "visa")
        #expect(OutputLine.parse(collected)?["last4"] == "4242")
        phone.send("confirm")
        let confirmed = try #require(await phone.waitForLine { $0.hasPrefix("confirmed ") }, "\(phone.output)")
        #expect(OutputLine.parse(confirmed)?["status"] == "succeeded")
        #expect(OutputLine.parse(confirmed)?["amount"] == "1250")
        // background: the phone's reader disconnects and the lane keeps it while it may
        // reconnect; foreground: it reconnects, and takes a payment again.
        phone.send("background")
        #expect(await phone.waitForLine { $0.hasPrefix("reconnect_started ") && $0.contains("reader_id=\(reader)") } != nil, "\(phone.output)")
        phone.send("foreground")
        #expect(await phone.waitForLine { $0.hasPrefix("reconnect_succeeded ") && $0.contains("reader_id=\(reader)") } != nil, "\(phone.output)")
        phone.send("collect 300")
        #expect(await phone.waitForLine { $0.hasPrefix("collecting ") && $0.contains("amount=300") } != nil, "\(phone.output)")
        phone.send("tap")
        #expect(await eventually { phone.output.filter { $0.hasPrefix("collected ") }.count == 2 }, "\(phone.output)")
        #expect(!phone.output.contains { $0.hasPrefix("disconnected ") }, "\(phone.output)")

        // gatewayctl readers list: the phone, a tap_to_pay reader at the location.
        let list = try await ChildProcess.start("gatewayctl", ["readers", "list"], environment: environment)
        #expect(await list.waitForExit() == 0)
        let row = try #require(list.output.first { $0.hasPrefix(reader) }, "\(list.output)")
        #expect(row.contains("tap_to_pay") && row.contains(location), "\(row)")

        phone.send("quit")
        #expect(await phone.waitForExit() == 0)
        #expect(await readme.stop() == 0)
    }
}
