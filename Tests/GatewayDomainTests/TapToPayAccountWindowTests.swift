import GatewayDomain
import Testing

/// At most 3 unique accounts per device in a rolling 24 hours.
@Suite("Tap to Pay: accounts per device")
struct TapToPayAccountWindowTests {
    static let hour: Int64 = 3600 * 1000

    @Test("three accounts are admitted, the fourth is blocked until the oldest use is 24 hours old")
    func fourthAccountBlocked() {
        var window = TapToPayAccountWindow()
        #expect(window.admit("acct_a", nowMs: 0) == .admitted(accounts: 1))
        #expect(window.admit("acct_b", nowMs: 1 * Self.hour) == .admitted(accounts: 2))
        #expect(window.admit("acct_c", nowMs: 2 * Self.hour) == .admitted(accounts: 3))
        #expect(window.admit("acct_d", nowMs: 3 * Self.hour) == .blocked(accounts: 3, retryAtMs: 24 * Self.hour))
        // An account already in the window comes back freely, and its use is refreshed.
        #expect(window.admit("acct_b", nowMs: 4 * Self.hour) == .admitted(accounts: 3))
        #expect(window.admit("acct_d", nowMs: 24 * Self.hour - 1) == .blocked(accounts: 3, retryAtMs: 24 * Self.hour))
        // acct_a's use leaves the window at exactly 24 h: there is room again.
        #expect(window.admit("acct_d", nowMs: 24 * Self.hour) == .admitted(accounts: 3))
        // Now b (refreshed at 4 h), c and d are in; a is blocked until c's use is 24 h old.
        #expect(window.admit("acct_a", nowMs: 25 * Self.hour) == .blocked(accounts: 3, retryAtMs: 26 * Self.hour))
    }

    @Test("the window rolls: each use counts for 24 hours from that use")
    func rolling() {
        var window = TapToPayAccountWindow()
        for (index, account) in ["a", "b", "c"].enumerated() {
            #expect(window.admit(account, nowMs: Int64(index) * 10 * Self.hour) == .admitted(accounts: index + 1))
        }
        // a at 0 h, b at 10 h, c at 20 h. At 30 h a is out; at 33 h b is still in.
        #expect(window.admit("d", nowMs: 30 * Self.hour) == .admitted(accounts: 3))
        #expect(window.admit("e", nowMs: 33 * Self.hour) == .blocked(accounts: 3, retryAtMs: 34 * Self.hour))
    }

    @Test("a refused account is not recorded")
    func refusalRecordsNothing() {
        var window = TapToPayAccountWindow(limit: 1, windowMs: 10)
        #expect(window.admit("a", nowMs: 0) == .admitted(accounts: 1))
        #expect(window.admit("b", nowMs: 5) == .blocked(accounts: 1, retryAtMs: 10))
        #expect(window.lastUseMs["b"] == nil)
    }
}
