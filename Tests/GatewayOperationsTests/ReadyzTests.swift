import Testing
@testable import GatewayOperations

/// What `/readyz` says of the store: 503 until the replica's first successful store start,
/// then an outage is reported in the body and the probe stays 200 (PostgreSQL is shared: a
/// failing check would take every replica out of the Service at once).
@Suite("Readiness during a store outage")
struct ReadyzTests {
    let staleAfter = Duration.seconds(6)

    @Test func theStoreFailsReadinessUntilItFirstAnswered() {
        #expect(StoreReadiness.outcome(lastPingAge: nil, staleAfter: staleAfter) == .notReady("not connected yet"))
        #expect(!StoreReadiness.isReachable(lastPingAge: nil, staleAfter: staleAfter))
    }

    @Test func aRecentPingIsReady() {
        #expect(StoreReadiness.outcome(lastPingAge: .seconds(2), staleAfter: staleAfter) == .ready)
        #expect(StoreReadiness.outcome(lastPingAge: .seconds(6), staleAfter: staleAfter) == .ready)
        #expect(StoreReadiness.isReachable(lastPingAge: .seconds(6), staleAfter: staleAfter))
    }

    @Test func anOutageIsDegradedNotFailing() throws {
        let outcome = StoreReadiness.outcome(lastPingAge: .milliseconds(9_600), staleAfter: staleAfter)
        guard case .degraded(let reason) = outcome else {
            Issue.record("a store outage after the first start reads \(outcome), not degraded")
            return
        }
        #expect(reason.hasPrefix("no successful ping for 10 s: new connects and registrations fail with STORE_UNAVAILABLE"))
        #expect(!StoreReadiness.isReachable(lastPingAge: .milliseconds(9_600), staleAfter: staleAfter))
    }

    @Test func aDegradedCheckPassesTheProbeAndAFailingOneDoesNot() {
        let router = { (store: ReadinessCheck.Outcome, draining: ReadinessCheck.Outcome) in
            OpsRouter(collection: MetricsCollection(), readinessChecks: [ReadinessCheck("store") { store }, ReadinessCheck("draining") { draining }])
        }
        let head = OpsHTTPRequestHead(method: "GET", path: "/readyz", minorVersion: 1, headers: [])
        let degraded = router(.degraded("no successful ping for 8 s"), .ready).respond(to: head)
        #expect(degraded.status == .ok)
        #expect(String(decoding: degraded.body, as: UTF8.self) == "ready, degraded\ndegraded store: no successful ping for 8 s\nok draining\n")
        // Draining still takes the replica out, degraded or not.
        let draining = router(.degraded("no successful ping for 8 s"), .notReady("shutting down")).respond(to: head)
        #expect(draining.status == .serviceUnavailable)
        #expect(String(decoding: draining.body, as: UTF8.self) == "not ready\ndegraded store: no successful ping for 8 s\nfailing draining: shutting down\n")
        #expect(String(decoding: router(.ready, .ready).respond(to: head).body, as: UTF8.self) == "ready\nok store\nok draining\n")
    }
}
