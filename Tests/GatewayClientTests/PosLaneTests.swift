import GatewayCommandLine
import GatewayTestSupport
import Testing

@Suite("pos-lane: the process against a fake gateway")
struct PosLaneTests {
    @Test("the process: discover, busy with failIfInUse, connect, a declined collect and a collect, then the takeover event before the failed command")
    func process() async throws {
        let server = try EchoServer()
        let lane = try await ChildProcess.start("pos-lane", [
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
        // A declined card: the error line names the reason and the decline code; the next collect reads a card.
        server.configure { $0.declineCollectsWith = "insufficient_funds" }
        lane.send("collect 1999")
        let declined = try #require(await lane.waitForLine { $0.hasPrefix("error ") && $0.contains("command=collect") }, "\(lane.output)")
        #expect(OutputLine.parse(declined)?["code"] == "FAILED_PRECONDITION")
        #expect(OutputLine.parse(declined)?["reason"] == "CARD_DECLINED")
        #expect(OutputLine.parse(declined)?["decline_code"] == "insufficient_funds")
        server.configure { $0.declineCollectsWith = nil }
        lane.send("collect 1999")
        let collected = try #require(await lane.waitForLine { $0.hasPrefix("collected ") }, "\(lane.output)")
        #expect(OutputLine.parse(collected)?["last4"] == "4242")
        server.configure { $0.takeOverOnCommand = true }
        lane.send("clear")
        let error = try #require(await lane.waitForLine { $0.hasPrefix("error ") && $0.contains("command=clear") })
        #expect(OutputLine.parse(error)?["reason"] == "READER_CONNECTED_TO_ANOTHER_SESSION")
        #expect(OutputLine.parse(error)?["terminal_code"] == "readerConnectedToAnotherDevice")
        #expect(OutputLine.parse(error)?["taken_by_lane"] == "Lane B")
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
