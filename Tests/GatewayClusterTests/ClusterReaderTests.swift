import GatewayTestKit
import GatewayTestSupport
import GatewayWire
import Testing

/// The cluster suites' reader (``ClusterReader``) against the fake gateway of the test support
/// (`EchoServer`): no cluster, no PostgreSQL.
@Suite("the cluster suites' reader")
struct ClusterReaderTests {
    /// The gateway numbers a link's commands from 1, so a reader that re-attaches gets ids its
    /// previous link used. A collect still timed on the ended link must not take a new link's
    /// collect of the same id for its own: before, its timer answered the new collect on the
    /// dead link (the answer was lost), the new collect's timer found nothing held, and the
    /// gateway waited for an answer that never came (a lane's collect ended in
    /// DEADLINE_EXCEEDED in `make upgrade-test`, its reader having re-attached right then).
    @Test("a collect on a new link is answered there, whatever collect of the same id the ended link held")
    func collectOfTheSameIDOnTheNextLinkIsAnswered() async throws {
        let server = try EchoServer()
        let certificates = ClientTestCertificates.shared
        // Each link's collect runs out when the test opens that link's gate: the first link's
        // after the second link's collect is held, the second link's after the first's timer ran.
        let gates = [1: Gate(), 2: Gate()]
        let reader = ClusterReader(
            serial: "CRT000001", ports: [server.port], caPath: certificates.caPath, certificate: certificates.readerClient,
            group: server.group, collectTimer: { link in await gates[link]?.wait() }
        )
        reader.start()
        // At least once: on a loaded machine a link may end and the reader attach again at any
        // point; the counts below are taken from what happened so far. This test runs beside the
        // whole suite (no cluster of its own), so its waits use the suite's hang detector, not
        // the cluster helpers' 10 s.
        try #require(await eventuallyIgnoringErrors(timeout: outcomeDeadline) { server.snapshot.attaches >= 1 }, "the reader never attached: \(reader.linkEnds)")

        server.sendDownlink(Self.collect(id: 1))
        try #require(await eventuallyIgnoringErrors(timeout: outcomeDeadline) { reader.isHoldingCollect }, "the first link's collect never reached the reader: \(reader.linkEnds)")
        let attachesBefore = server.snapshot.attaches
        server.dropConnections()
        try #require(await eventuallyIgnoringErrors(timeout: outcomeDeadline) { server.snapshot.attaches > attachesBefore && !reader.linkEnds.isEmpty }, "the reader did not attach again: \(reader.linkEnds)")

        server.sendDownlink(Self.collect(id: 1))
        try #require(await eventuallyIgnoringErrors(timeout: outcomeDeadline) { reader.commandCount == 2 && reader.isHoldingCollect }, "the second link's collect never reached the reader")
        gates[1]?.open()
        try #require(await eventuallyIgnoringErrors(timeout: outcomeDeadline) { reader.collectTimersRun == 1 }, "the first link's collect timer never ran")
        gates[2]?.open()

        let answered = await eventuallyIgnoringErrors(timeout: outcomeDeadline) {
            server.snapshot.uplinks.contains { uplink in
                guard case .commandResult(let result)? = uplink.message, result.commandID == 1 else { return false }
                guard case .paymentMethod(let method)? = result.result else { return false }
                return method.last4 == "4242"
            }
        }
        #expect(answered, "the second link's collect was never answered")
        reader.stop()
        await server.stop()
    }

    static func collect(id: UInt64) -> ReaderGatewayV1.ReaderDownlink {
        var command = ReaderGatewayV1.ReaderCommand()
        command.commandID = id
        command.command = .collectPaymentMethod(.init())
        var downlink = ReaderGatewayV1.ReaderDownlink()
        downlink.message = .command(command)
        return downlink
    }
}

