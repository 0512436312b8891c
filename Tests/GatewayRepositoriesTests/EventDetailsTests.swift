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
}
