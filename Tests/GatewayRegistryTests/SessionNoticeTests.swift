import GatewayDomain
@testable import GatewayRegistry
import GatewayWire
import Testing

/// The registry keeps what a session is told as plain values; the wire message is built from
/// them after the shell's lock, and says the same as the registry decided.
@Suite("Session notices: the wire message built after the lock")
struct SessionNoticeTests {
    @Test func aLossBecomesTheDisconnectedEventWithWhoTookTheReader() {
        let loss = ReaderLoss(reader: ReaderID("tmr_1"), reason: .replaced, generation: OwnershipGeneration(4), takenByLane: "Lane B", takenByPosDeviceID: "pos-B")
        let message = SessionNotice(sequence: 7, atUnixMs: 1_000, event: .disconnected(loss)).message
        #expect(message.sequence == 7)
        #expect(message.atUnixMs == 1_000)
        guard case .disconnected(let told)? = message.event else {
            Issue.record("not a disconnected event: \(message)")
            return
        }
        #expect(told.readerID == "tmr_1")
        #expect(told.generation == 4)
        #expect(told.reason == .replaced)
        #expect(told.takenByLaneLabel == "Lane B")
        #expect(told.takenByPosDeviceID == "pos-B")
        #expect(told.message == "Lane B connected to the reader")
    }

    @Test func aStatusChangeRendersTheReaderLiveAtTheNoticesTime() {
        var described = ReaderGatewayV1.Reader()
        described.id = "tmr_1"
        described.label = "Front"
        let status = LinkStatus(activity: .collecting, ipAddress: "10.0.0.5", batteryLevel: 0.5, softwareVersion: "2.1")
        let message = SessionNotice(sequence: 1, atUnixMs: 42, event: .statusChanged(described: described, status: status)).message
        guard case .readerStatusChanged(let changed)? = message.event else {
            Issue.record("not a status change: \(message)")
            return
        }
        #expect(changed.reader == status.render(described, nowUnixMs: 42))
        #expect(changed.reader?.networkStatus == .online)
        #expect(changed.reader?.activity == .collecting)
        #expect(changed.reader?.lastSeenUnixMs == 42)
    }

    @Test func progressNamesTheReader() {
        let message = SessionNotice(sequence: 2, atUnixMs: 5, event: .updateProgress(reader: ReaderID("tmr_9"), progress: 0.75)).message
        guard case .updateProgress(let progress)? = message.event else {
            Issue.record("not progress: \(message)")
            return
        }
        #expect(progress.readerID == "tmr_9")
        #expect(progress.progress == 0.75)
    }
}
