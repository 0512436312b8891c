import GatewayDomain
@testable import GatewayService
import GatewayWire
import Testing

/// The payload a reader's home replica announces when the reader's owner is on
/// another replica (`NOTIFY reader_gateway_status`).
@Suite("reader status notices")
struct ReaderStatusNoticeTests {
    @Test("a payload round-trips, with and without battery and address")
    func roundTrip() {
        let full = ReaderStatusNotice(reader: ReaderID("tmr_abc"), activity: .collecting, batteryLevel: 0.5, ipAddress: "10.0.0.7")
        #expect(full.payload == "tmr_abc \(ReaderGatewayV1.ReaderActivity.collecting.rawValue) 0.5 10.0.0.7")
        #expect(ReaderStatusNotice(payload: full.payload) == full)
        let bare = ReaderStatusNotice(reader: ReaderID("tmr_abc"), activity: .idle, batteryLevel: nil, ipAddress: "")
        #expect(ReaderStatusNotice(payload: bare.payload) == bare)
        // A later release may append fields; this one reads the four it knows.
        #expect(ReaderStatusNotice(payload: full.payload + " later fields") == full)
    }

    @Test("malformed payloads are dropped, not guessed", arguments: ["", "tmr_abc", "tmr_abc 1 0.5", "tmr_abc x 0.5 -", "tmr_abc 1 full -", " 1 - -"])
    func malformed(payload: String) {
        #expect(ReaderStatusNotice(payload: payload) == nil)
    }
}
