import GatewayCommandLine
import GatewayTestSupport
import Testing

/// pos-lane's `discover --serial` and `easy-connect`, as real processes against a real
/// `reader-gateway` and `reader-sim`: one reader found by its serial, nothing for a serial the
/// account does not have, and two lanes easy-connecting under the failIfInUse rules.
@Suite("pos-lane: discovery filter and easy-connect", .serialized)
struct PosLaneEasyConnectTests {
    @Test func twoLanesEasyConnectOneReader() async throws {
        let gateway = try await WalkthroughGateway.start()
        defer { gateway.discard() }
        let (ca, secretKey, address, environment) = (gateway.ca, gateway.secretKey, gateway.address, gateway.environment)
        let create = try await ChildProcess.start("gatewayctl", ["locations", "create", "Front Store"], environment: environment)
        #expect(await create.waitForExit() == 0, "stderr: \(create.standardError)")
        let location = try #require(create.output.first)

        let serial = "WSC513105011777"
        let simulator = try await ChildProcess.start("reader-sim", ["--gateway", address, "--ca", ca, "--serial", serial, "--collect-duration", "60s"])
        defer { simulator.terminate() }
        let codeLine = try #require(await simulator.waitForLine { $0.hasPrefix("registration_code serial=\(serial) code=") }, "\(simulator.output)")
        let code = try #require(OutputLine.parse(codeLine)?["code"])
        let register = try await ChildProcess.start(
            "gatewayctl", ["readers", "register", "--code", code, "--label", "Counter 1", "--location", location], environment: environment
        )
        #expect(await register.waitForExit() == 0, "stderr: \(register.standardError)")
        let reader = try #require(register.output.first { $0.contains("Counter 1") }?.split(separator: " ").first.map(String.init), "\(register.output)")
        #expect(await simulator.waitForLine { $0.hasPrefix("online ") } != nil)

        func lane(_ label: String, _ device: String) async throws -> ChildProcess {
            try await ChildProcess.start("pos-lane", [
                "--gateway", address, "--ca", ca, "--secret-key", secretKey, "--location", location, "--lane", label, "--pos-device-id", device,
            ])
        }
        let lane1 = try await lane("Lane 1", "pos-1")
        defer { lane1.terminate() }
        let lane2 = try await lane("Lane 2", "pos-2")
        defer { lane2.terminate() }
        #expect(await lane1.waitForLine { $0.hasPrefix("session ") } != nil, "stderr: \(lane1.standardError)")
        #expect(await lane2.waitForLine { $0.hasPrefix("session ") } != nil, "stderr: \(lane2.standardError)")

        // discover --serial: that reader alone; a serial the account does not have: none.
        lane1.send("discover --serial \(serial)")
        let found = try #require(await lane1.waitForLine { $0.hasPrefix("discovered ") }, "\(lane1.output)")
        #expect(OutputLine.parse(found)?["count"] == "1")
        #expect(lane1.output.contains { $0.hasPrefix("reader ") && $0.contains("reader_id=\(reader)") && $0.contains("serial=\(serial)") }, "\(lane1.output)")
        lane1.send("discover --serial WSC-NOT-HERE")
        #expect(await lane1.waitForLine { $0.hasPrefix("discovered ") && $0.contains("count=0") } != nil, "\(lane1.output)")
        // easy-connect of nothing: READER_NOT_FOUND, nothing connected.
        lane1.send("easy-connect --serial WSC-NOT-HERE --fail-if-in-use")
        let notFound = try #require(await lane1.waitForLine { $0.hasPrefix("error ") }, "\(lane1.output)")
        #expect(OutputLine.parse(notFound)?["reason"] == "READER_NOT_FOUND")

        // Lane 1 easy-connects by serial and collects: the reader is mid-transaction.
        lane1.send("easy-connect --serial \(serial) --fail-if-in-use")
        let connected1 = try #require(await lane1.waitForLine { $0.hasPrefix("connected ") }, "\(lane1.output)")
        #expect(OutputLine.parse(connected1)?["reader_id"] == reader)
        #expect(OutputLine.parse(connected1)?["generation"] == "1")
        lane1.send("collect 1999")
        #expect(await simulator.waitForLine { $0.hasPrefix("command ") && $0.contains("kind=collect") } != nil)

        // Lane 2 with --fail-if-in-use: busy, saying how to take it over; then it takes it.
        lane2.send("easy-connect --reader-id \(reader) --fail-if-in-use")
        let busy = try #require(await lane2.waitForLine { $0.hasPrefix("busy ") }, "\(lane2.output)")
        #expect(OutputLine.parse(busy)?["message"]?.contains("easy-connect --reader-id \(reader)") == true, "\(busy)")
        lane2.send("easy-connect --reader-id \(reader)")
        let connected2 = try #require(await lane2.waitForLine { $0.hasPrefix("connected ") }, "\(lane2.output)")
        #expect(OutputLine.parse(connected2)?["generation"] == "2")
        #expect(OutputLine.parse(connected2)?["replaced_other_session"] == "true")
        let disconnected = try #require(await lane1.waitForLine { $0.hasPrefix("disconnected ") }, "\(lane1.output)")
        #expect(OutputLine.parse(disconnected)?["taken_by_lane"] == "Lane 2")

        let history = try await ChildProcess.start("gatewayctl", ["history", reader], environment: environment)
        #expect(await history.waitForExit() == 0)
        let changes = history.output.dropFirst().compactMap { line in ["replaced", "refused_busy", "connected"].first { line.contains("  \($0)  ") } }
        #expect(changes == ["replaced", "refused_busy", "connected"], "\(history.output)")

        lane1.send("quit")
        lane2.send("quit")
        simulator.send("quit")
        #expect(await lane1.waitForExit() == 0)
        #expect(await lane2.waitForExit() == 0)
        #expect(await simulator.waitForExit() == 0)
        #expect(await gateway.stop() == 0)
    }
}
