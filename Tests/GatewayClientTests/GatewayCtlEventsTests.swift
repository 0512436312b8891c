import Foundation
import GatewayCommandLine
import GatewayTestSupport
import Testing

/// `gatewayctl events list|get` as a real process against a real `reader-gateway`: the
/// registrations it just made listed newest first, a page at a time, one event by id, and
/// bad input refused with what to fix (exit 65).
@Suite("gatewayctl events", .serialized)
struct GatewayCtlEventsTests {
    @Test func listPageAndGetThroughThePrograms() async throws {
        let gateway = try await WalkthroughGateway.start()
        defer { gateway.discard() }
        let environment = gateway.environment
        func ctl(_ arguments: [String], exit expected: Int32 = 0) async throws -> ChildProcess {
            let process = try await ChildProcess.start("gatewayctl", arguments, environment: environment)
            #expect(await process.waitForExit() == expected, "\(arguments): \(process.standardError)")
            return process
        }
        func json(_ process: ChildProcess) throws -> [String: Any] {
            let text = process.output.joined(separator: "\n")
            return try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "\(text)")
        }
        let location = try #require(try await ctl(["locations", "create", "Floor"]).output.first)
        _ = try await ctl(["readers", "register", "--serials", "EVC-1,EVC-2,EVC-3", "--label-prefix", "Till", "--location", location])

        // The table: a header, then the three registrations, newest first.
        let table = try await ctl(["events", "list"])
        #expect(table.output.first?.hasPrefix("CREATED") == true, "\(table.output)")
        let rows = table.output.dropFirst().filter { $0.contains("reader.registered") }
        #expect(rows.count == 3 && rows.allSatisfy { $0.contains(location) }, "\(table.output)")
        #expect(!table.output.contains { $0.hasPrefix("next page") })

        // Pages of two: the first ends with the next page's token, the second follows it.
        let first = try json(try await ctl(["events", "list", "--json", "--limit", "2", "--type", "reader.registered"]))
        let firstEvents = try #require(first["events"] as? [[String: Any]])
        let token = try #require(first["next_page_token"] as? String)
        #expect(firstEvents.count == 2)
        let second = try json(try await ctl(["events", "list", "--json", "--limit", "2", "--page-token", token]))
        let secondEvents = try #require(second["events"] as? [[String: Any]])
        #expect(secondEvents.count == 1 && second["next_page_token"] is NSNull)
        let ids = (firstEvents + secondEvents).compactMap { $0["id"] as? String }
        #expect(Set(ids).count == 3 && ids.allSatisfy { $0.hasPrefix("evt_") })
        let textPage = try await ctl(["events", "list", "--limit", "1"])
        #expect(textPage.output.last?.hasPrefix("next page: --page-token ") == true, "\(textPage.output)")

        // One event by id: its object parsed into the document.
        let event = try json(try await ctl(["events", "get", ids[2], "--json"]))
        #expect(event["id"] as? String == ids[2] && event["type"] as? String == "reader.registered")
        let object = try #require(event["object"] as? [String: Any])
        #expect(object["object"] as? String == "reader" && object["serial_number"] as? String == "EVC-1", "\(object)")
        let shown = try await ctl(["events", "get", ids[2]])
        #expect(shown.output.contains { $0.contains("\"serial_number\": \"EVC-1\"") }, "\(shown.output)")

        // Refusals: a type that does not exist, a token not issued, an unknown id.
        let badType = try await ctl(["events", "list", "--type", "reader.exploded"], exit: 65)
        #expect(badType.standardError.contains("\"reader.exploded\" is not an event type"), "\(badType.standardError)")
        let badToken = try await ctl(["events", "list", "--page-token", "nope"], exit: 65)
        #expect(badToken.standardError.contains("page_token is not one this gateway issued"), "\(badToken.standardError)")
        let unknown = try await ctl(["events", "get", "evt_00000000000000000000000000000000"], exit: 65)
        #expect(unknown.standardError.contains("no event with this id"), "\(unknown.standardError)")
        let badTime = try await ctl(["events", "list", "--since", "yesterday"], exit: 64)
        #expect(badTime.standardError.contains("RFC 3339"), "\(badTime.standardError)")
    }
}
