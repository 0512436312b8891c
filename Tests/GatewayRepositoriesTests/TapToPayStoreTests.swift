import Foundation
import GatewayDomain
import GatewayPostgres
import GatewayRepositories
import Testing

/// The 3-accounts-per-24-hours rule in PostgreSQL: the clock driven by the test, parity
/// with the pure rule, and racing replicas.
@Suite("Tap to Pay store")
struct TapToPayStoreTests {
    static let hour: Int64 = 3600 * 1000
    static let origin = Date(timeIntervalSince1970: 1_800_000_000)

    static func at(_ ms: Int64) -> Date { origin.addingTimeInterval(Double(ms) / 1000) }
    static func relative(_ admission: TapToPayAccountWindow.Admission) -> TapToPayAccountWindow.Admission {
        guard case .blocked(let accounts, let retryAtMs) = admission else { return admission }
        return .blocked(accounts: accounts, retryAtMs: retryAtMs - Int64(origin.timeIntervalSince1970 * 1000))
    }

    @Test("the statement decides as TapToPayAccountWindow does, over a day and a half of connects")
    func parityWithTheRule() async throws {
        try await withOwnershipDatabase { client in
            let store = TapToPayStore(client: client)
            var rule = TapToPayAccountWindow()
            // Five accounts connecting on one device every 2 h 30 min, round robin, for 36 h;
            // a second device gets every connect too and must not share the first's count.
            let accounts = ["acct_a", "acct_b", "acct_c", "acct_d", "acct_e"]
            var admitted = 0
            var blocked = 0
            for step in 0..<15 {
                let now = Int64(step) * 150 * 60 * 1000
                let account = accounts[(step * 2) % accounts.count]
                let expected = rule.admit(account, nowMs: now)
                let decided = Self.relative(try await store.admit(device: "pos-phone", account: account, now: Self.at(now)))
                #expect(decided == expected, "step \(step): \(account) at \(now / Self.hour) h")
                if case .admitted = expected { admitted += 1 } else { blocked += 1 }
                _ = try await store.admit(device: "pos-other-\(step)", account: account, now: Self.at(now))
            }
            // The sequence exercised both outcomes.
            #expect(admitted > 3 && blocked > 0)
        }
    }

    @Test("the fourth account 23 h 59 min after the first is blocked; at 24 h it is admitted")
    func windowEdge() async throws {
        try await withOwnershipDatabase { client in
            let store = TapToPayStore(client: client)
            for (index, account) in ["a", "b", "c"].enumerated() {
                #expect(try await store.admit(device: "phone", account: account, now: Self.at(Int64(index) * Self.hour)) == .admitted(accounts: index + 1))
            }
            let almost = Self.relative(try await store.admit(device: "phone", account: "d", now: Self.at(24 * Self.hour - 60_000)))
            #expect(almost == .blocked(accounts: 3, retryAtMs: 24 * Self.hour))
            #expect(try await store.admit(device: "phone", account: "d", now: Self.at(24 * Self.hour)) == .admitted(accounts: 3))
        }
    }

    @Test("twelve accounts racing on one device from two replicas' pools: exactly 3 admitted")
    func raceAcrossReplicas() async throws {
        try await withOwnershipDatabase(secondClient: true) { first, second in
            let stores = [TapToPayStore(client: first), TapToPayStore(client: second)]
            let admitted = try await withThrowingTaskGroup(of: Bool.self) { group in
                for index in 0..<12 {
                    group.addTask {
                        let result = try await stores[index % 2].admit(device: "shared-phone", account: "acct_\(index)")
                        if case .admitted = result { return true }
                        return false
                    }
                }
                var count = 0
                for try await admitted in group where admitted { count += 1 }
                return count
            }
            #expect(admitted == 3)
            let rows = try await first.query("SELECT count(*)::integer AS n FROM tap_to_pay_device_accounts WHERE device_id = 'shared-phone'")
            #expect(try rows.first?.decode(Int.self, "n") == 3)
        }
    }

    @Test("terms are accepted once per account, whatever the device")
    func termsOncePerAccount() async throws {
        try await withOwnershipDatabase { client in
            let store = TapToPayStore(client: client)
            let before = try await store.termsAccepted(account: "acct_a")
            let onFirstPhone = try await store.acceptTerms(account: "acct_a", device: "phone-1")
            let onSecondPhone = try await store.acceptTerms(account: "acct_a", device: "phone-2")
            let after = try await store.termsAccepted(account: "acct_a")
            let otherAccount = try await store.termsAccepted(account: "acct_b")
            #expect(!before && onFirstPhone && !onSecondPhone && after && !otherAccount)
        }
    }
}
