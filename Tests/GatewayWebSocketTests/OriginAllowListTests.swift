import GatewayWebSocket
import Testing

@Suite("Origin allow-list")
struct OriginAllowListTests {
    @Test("parses the flag value: star, lists separated by commas or spaces, empty")
    func parse() throws {
        let list = try OriginAllowList.parse("https://a.example, http://localhost:8080 null").get()
        #expect(list.allows("https://a.example"))
        #expect(list.allows("https://A.example/"))
        #expect(list.allows("http://localhost:8080"))
        #expect(list.allows("null"))
        #expect(!list.allows("http://localhost:8081"))
        #expect(!list.allows("https://b.example"))
        #expect(list.allows(nil))
        #expect(try OriginAllowList.parse("*").get() == .any)
        #expect(try OriginAllowList.parse("").get() == .none)
        #expect(!OriginAllowList.none.allows("https://a.example"))
    }

    @Test("a port of * matches the scheme and host on any port, and nothing else (make run's development list)")
    func anyPort() throws {
        let list = try OriginAllowList.parse("http://localhost:*,http://127.0.0.1:*").get()
        #expect(list.allows("http://localhost:27082"))
        #expect(list.allows("http://127.0.0.1:8000"))
        #expect(list.allows("http://localhost"))
        #expect(!list.allows("https://localhost:27082"), "another scheme")
        #expect(!list.allows("http://localhost.example:80"), "another host")
        #expect(!list.allows("http://evil.example#localhost:1"))
        #expect(!list.allows("http://[::1]:8000"))
        #expect(list.description == "http://127.0.0.1:*,http://localhost:*")
        #expect(OriginAllowList.none.description == "none" && OriginAllowList.any.description == "*")
    }

    @Test("an entry that is not an origin is named in the error", arguments: ["a.example", "https://a.example/path", "https://", "https://a.example?x", "*, https://a.example"])
    func invalid(entry: String) {
        guard case .failure(let error) = OriginAllowList.parse(entry) else {
            Issue.record("accepted \(entry)")
            return
        }
        #expect(error.description.contains("is not an origin"))
    }
}
