import GatewayDomain
import Testing

/// The pure rules of webhook delivery: which addresses the SSRF guard refuses, which URLs an
/// endpoint may have, and when a failed delivery is tried again.
@Suite("Webhook rules")
struct WebhookRulesTests {
    static func v4(_ a: UInt8, _ b: UInt8, _ c: UInt8, _ d: UInt8) -> [UInt8] { [a, b, c, d] }
    static func v6(_ groups: [UInt16]) -> [UInt8] { groups.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xff)] } }

    @Test("loopback, link-local, private, shared, unique-local and unspecified addresses are refused; public ones pass")
    func addressRanges() {
        let refused: [([UInt8], String)] = [
            (Self.v4(127, 0, 0, 1), "loopback"), (Self.v4(127, 9, 9, 9), "loopback"),
            (Self.v4(10, 1, 2, 3), "private"), (Self.v4(172, 16, 0, 1), "private"), (Self.v4(172, 31, 255, 255), "private"),
            (Self.v4(192, 168, 1, 1), "private"), (Self.v4(169, 254, 169, 254), "link-local"), (Self.v4(0, 0, 0, 0), "unspecified"),
            (Self.v4(100, 64, 0, 1), "shared (carrier-grade NAT)"), (Self.v4(224, 0, 0, 1), "multicast"), (Self.v4(255, 255, 255, 255), "reserved"),
            (Self.v6([0, 0, 0, 0, 0, 0, 0, 1]), "loopback"), (Self.v6([0, 0, 0, 0, 0, 0, 0, 0]), "unspecified"),
            (Self.v6([0xfe80, 0, 0, 0, 0, 0, 0, 1]), "link-local"), (Self.v6([0xfd00, 0, 0, 0, 0, 0, 0, 1]), "unique-local"),
            (Self.v6([0xfc00, 1, 0, 0, 0, 0, 0, 1]), "unique-local"),
            // IPv4-mapped and NAT64 forms of private IPv4 addresses.
            (Self.v6([0, 0, 0, 0, 0, 0xffff, 0x7f00, 0x0001]), "loopback"), (Self.v6([0, 0, 0, 0, 0, 0xffff, 0x0a00, 0x0001]), "private"),
            (Self.v6([0x64, 0xff9b, 0, 0, 0, 0, 0xa9fe, 0xa9fe]), "link-local"),
        ]
        for (address, range) in refused {
            #expect(WebhookAddressPolicy.restrictedRange(address) == range, "\(address)")
            #expect(WebhookAddressPolicy.publicOnly.refusal(address) == "\(range) address", "\(address)")
            #expect(WebhookAddressPolicy.allowPrivate.refusal(address) == nil, "\(address)")
        }
        let allowed: [[UInt8]] = [
            Self.v4(8, 8, 8, 8), Self.v4(172, 15, 255, 255), Self.v4(172, 32, 0, 0), Self.v4(169, 253, 1, 1), Self.v4(100, 128, 0, 1),
            Self.v6([0x2a00, 0x1450, 0, 0, 0, 0, 0, 1]), Self.v6([0, 0, 0, 0, 0, 0xffff, 0x0808, 0x0808]),
        ]
        for address in allowed { #expect(WebhookAddressPolicy.publicOnly.refusal(address) == nil, "\(address)") }
        #expect(WebhookAddressPolicy.publicOnly.refusal([1, 2, 3]) == "malformed address")
    }

    @Test("only https URLs with a host; port, path and query kept; credentials and fragments refused")
    func urls() throws {
        let plain = try WebhookURL("https://hooks.example.com/readers?x=1")
        #expect(plain.host == "hooks.example.com" && plain.port == 443 && plain.target == "/readers?x=1" && plain.hostHeader == "hooks.example.com")
        let bare = try WebhookURL("HTTPS://Hooks.Example.com")
        #expect(bare.host == "hooks.example.com" && bare.target == "/")
        let v6 = try WebhookURL("https://[::1]:8443/h")
        #expect(v6.host == "::1" && v6.port == 8443 && v6.hostHeader == "[::1]:8443")
        let query = try WebhookURL("https://example.com:9000?a=b")
        #expect(query.port == 9000 && query.target == "/?a=b" && query.hostHeader == "example.com:9000")
        for bad in ["http://example.com/", "https://", "https://user:pw@example.com/", "https://example.com/#x", "https://example.com:0/",
                    "https://example.com:70000/", "https://exa mple.com/", "ftp://example.com", "https://[::1/"] {
            #expect(throws: WebhookURLError.self, "\(bad)") { try WebhookURL(bad) }
        }
    }

    @Test("the backoff doubles from the base up to the cap, and the jitter keeps each delay in [half, whole) of its step")
    func backoff() {
        let schedule = WebhookRetrySchedule(baseMs: 1_000, capMs: 60_000)
        #expect((1...8).map { schedule.step(afterAttempt: $0) } == [1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 60_000, 60_000])
        #expect(schedule.step(afterAttempt: 500) == 60_000)
        #expect(schedule.delay(afterAttempt: 3, unitRandom: 0) == 2_000)
        #expect(schedule.delay(afterAttempt: 3, unitRandom: 0.5) == 3_000)
        #expect(schedule.delay(afterAttempt: 3, unitRandom: 1) < 4_000)
        var generator = SystemRandomNumberGenerator()
        for attempt in 1...20 {
            let delay = schedule.delay(afterAttempt: attempt, unitRandom: Double.random(in: 0..<1, using: &generator))
            let step = schedule.step(afterAttempt: attempt)
            #expect(delay >= step / 2 && delay < step, "attempt \(attempt): \(delay) of \(step)")
        }
        // The defaults: 30 s doubling to 6 h; a base above the cap raises the cap.
        #expect(WebhookRetrySchedule().step(afterAttempt: 1) == 30_000 && WebhookRetrySchedule().step(afterAttempt: 30) == 6 * 3_600_000)
        #expect(WebhookRetrySchedule(baseMs: 10_000, capMs: 5_000).step(afterAttempt: 3) == 10_000)
    }
}
