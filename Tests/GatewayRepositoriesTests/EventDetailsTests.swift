import Foundation
@testable import GatewayRepositories
import Testing

/// An event's details as JSON, written by hand: any string comes back as it went in.
@Suite("Event details JSON")
struct EventDetailsTests {
    @Test("quotes, backslashes, control characters and non-ASCII text survive a JSON parser; keys are sorted")
    func escapesWhatJSONNeeds() throws {
        let details = [
            "object": "reader_action", "error_message": "the reader said \"no\" \\ then\nleft\t\u{1}\u{1f}",
            "label": "Caisse n°2 — 收银台 🧾", "empty": "",
        ]
        let text = EventDetails.json(details)
        #expect(text.hasPrefix("{\"empty\": \"\", \"error_message\": "), "\(text)")
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: String])
        #expect(parsed == details)
        #expect(EventDetails.json([:]) == "{}")
    }

    @Test("a batch's array parameters, written in one pass, are the array literals of each event's fields and details JSON")
    func batchParametersMatchTheFieldByFieldLiterals() throws {
        let batch = [
            ReaderEventBatcher.Event(type: "reader.action.failed", reader: "tmr_\"quoted\"", account: "acct_\\slash", details: [
                "object": "reader_action", "error_message": "the reader said \"no\" \\ then\nleft\t\r\u{1}\u{1f}",
                "label": "Caisse n°2 — 收银台 🧾", "empty": "",
            ]),
            ReaderEventBatcher.Event(type: "reader.action.succeeded", reader: "tmr_plain", account: "acct_plain", details: [:]),
            ReaderEventBatcher.Event(type: "reader.action.succeeded", reader: "", account: "a,b {c}", details: ["session_id": "sess_1"]),
        ]
        let written = EventBatchParameters(batch).values().map { $0?.text }
        let expected = [
            OwnershipClaimBatcher.arrayLiteral(batch.map(\.reader)), OwnershipClaimBatcher.arrayLiteral(batch.map(\.account)),
            OwnershipClaimBatcher.arrayLiteral(batch.map(\.type)), OwnershipClaimBatcher.arrayLiteral(batch.map { EventDetails.json($0.details) }),
        ]
        #expect(written == expected)
        #expect(EventBatchParameters([]).values().map { $0?.text } == ["{}", "{}", "{}", "{}"])
    }

    @Test("make bench-event-writes measures the batcher's own statement")
    func theCostScriptMeasuresTheBatchersStatement() throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("bench/event-write-cost.sh")
        let text = try String(contentsOf: script, encoding: .utf8)
        let start = try #require(text.range(of: "STATEMENT=\""))
        let end = try #require(text.range(of: "\"\n", range: start.upperBound..<text.endIndex))
        func words(_ sql: some StringProtocol) -> [Substring] {
            sql.replacingOccurrences(of: "\\$", with: "$").split(whereSeparator: \.isWhitespace)
        }
        #expect(words(text[start.upperBound..<end.lowerBound]) == words(ReaderEventBatcher.appendBatch))
    }
}
