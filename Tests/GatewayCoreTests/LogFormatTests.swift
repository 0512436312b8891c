import Foundation
@testable import GatewayCore
import Testing

@Suite struct LogFormatTests {
    let record = LogRecord(
        date: Date(timeIntervalSince1970: 1_700_000_000.123),
        level: .warning,
        component: "store",
        message: "query failed: \"boom\"",
        metadata: [("conn", "7"), ("peer addr", "127.0.0.1:5")]
    )

    @Test func logfmtQuotesOnlyWhatNeedsIt() {
        #expect(LogFormat.logfmt.format(record)
            == "ts=2023-11-14T22:13:20.123Z level=warning component=store msg=\"query failed: \\\"boom\\\"\" conn=7 peer_addr=127.0.0.1:5\n")
    }

    @Test func jsonIsOneParsableObjectPerLine() throws {
        let line = LogFormat.json.format(record)
        #expect(line.hasSuffix("}\n"))
        let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String]
        #expect(object?["msg"] == "query failed: \"boom\"")
        #expect(object?["peer addr"] == "127.0.0.1:5")
        #expect(object?["level"] == "warning")
    }

    @Test func controlCharactersAreEscaped() {
        #expect(LogFormat.escaped("a\nb\u{1}") == "a\\nb\\u0001")
    }
}
