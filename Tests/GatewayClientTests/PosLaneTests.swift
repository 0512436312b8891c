import GatewayCommandLine
import GatewayCore
import Testing

@Suite("pos-lane: stdin commands, options, and the process against a fake gateway")
struct PosLaneTests {
    @Test("commands parse", arguments: [
        ("discover", LaneCommand.discover),
        ("connect tmr_1", .connect(readerID: "tmr_1", failIfInUse: false)),
        ("connect tmr_1 --fail-if-in-use", .connect(readerID: "tmr_1", failIfInUse: true)),
        ("collect 1999", .collect(amount: 1_999)),
        ("collect 19.99", .collect(amount: 1_999)),
        ("display \"Large coffee\" 450", .display(item: "Large coffee", amount: 450)),
        ("confirm", .confirm), ("cancel", .cancel), ("clear", .clear), ("reboot", .reboot), ("disconnect", .disconnect), ("quit", .quit),
    ])
    func parses(line: String, expected: LaneCommand) throws {
        #expect(try LaneCommand.parse(line) == expected)
    }

    @Test("bad commands say what was expected", arguments: ["connect", "connect a b", "connect a --force", "collect", "collect 1.5", "collect -3", "display coffee", "fly"])
    func rejects(line: String) {
        #expect(throws: LaneCommand.ParseError.self) { try LaneCommand.parse(line) }
    }

    @Test("options: a token or a secret key is required")
    func options() throws {
        let lane = try #require(try LaneConfiguration.parse(arguments: ["--connection-token", "pst_1", "--lane", "Lane 3", "--location", "tml_1"], environment: [:]))
        #expect(lane.connectionToken == "pst_1")
        #expect(lane.laneLabel == "Lane 3")
        #expect(lane.locationID == "tml_1")
        #expect(try LaneConfiguration.parse(arguments: [], environment: ["POS_LANE_SECRET_KEY": "sk_1"])?.secretKey == "sk_1")
        #expect(throws: OptionsError.self) { try LaneConfiguration.parse(arguments: [], environment: [:]) }
    }

    @Test("the process: discover, busy with failIfInUse, connect, then the takeover event before the failed command")
    func process() async throws {
        let server = try EchoServer()
        let lane = try ChildProcess("pos-lane", [
            "--gateway", "127.0.0.1:\(server.port)", "--ca", ClientTestCertificates.shared.caPath,
            "--connection-token", "pst_1", "--lane", "Lane A", "--location", "tml_1",
        ])
        defer { lane.terminate() }
        #expect(await lane.waitForLine { $0.hasPrefix("session ") } != nil, "stderr: \(lane.standardError)")
        lane.send("discover")
        #expect(await lane.waitForLine { $0.hasPrefix("reader ") && $0.contains("reader_id=tmr_1") } != nil)
        server.configure { $0.busyOnFailIfInUse = true }
        lane.send("connect tmr_1 --fail-if-in-use")
        let busy = try #require(await lane.waitForLine { $0.hasPrefix("busy ") })
        #expect(OutputLine.parse(busy)?["message"]?.contains("connect tmr_1") == true)
        lane.send("connect tmr_1")
        #expect(await lane.waitForLine { $0.hasPrefix("connected ") } != nil)
        server.configure { $0.takeOverOnCommand = true }
        lane.send("clear")
        let error = try #require(await lane.waitForLine { $0.hasPrefix("error ") })
        #expect(OutputLine.parse(error)?["reason"] == "READER_CONNECTED_TO_ANOTHER_SESSION")
        let disconnected = try #require(await lane.waitForLine { $0.hasPrefix("disconnected ") })
        #expect(OutputLine.parse(disconnected)?["taken_by_lane"] == "Lane B")
        #expect(OutputLine.parse(disconnected)?["reason"] == "replaced")
        let lines = lane.output
        #expect(lines.firstIndex(of: disconnected)! < lines.firstIndex(of: error)!)
        lane.send("quit")
        #expect(await lane.waitForExit() == 0)
        await server.stop()
    }
}
