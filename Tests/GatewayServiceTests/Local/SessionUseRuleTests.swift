@testable import GatewayService
import GatewayWire
import Testing

/// Heartbeat, CloseSession and the lease sweep with the stores in memory and a manual clock.
@Suite("Local rules: session use")
struct SessionUseRuleTests {
    func heartbeat(_ local: LocalSDK, _ token: String, connection: UInt64 = 1) async throws(ServiceError) -> ReaderGatewayV1.HeartbeatResponse {
        var request = ReaderGatewayV1.HeartbeatRequest()
        request.sessionToken = token
        return try await local.sdk.sessions.heartbeat(request, local.context(connection: connection))
    }

    @Test func aHeartbeatWithAnUnknownTokenIsAnExpiredSession() async {
        let local = LocalSDK()
        #expect(await failure { try await heartbeat(local, "nobody") }?.reason == .sessionExpired)
    }

    @Test func aHeartbeatAnswersTheWholeLease() async throws {
        let local = LocalSDK { $0.sessionLease = .seconds(20) }
        let token = try await local.openSession()
        local.clock.advance(by: .seconds(5))
        #expect(try await heartbeat(local, token).leaseRemainingMs == 20_000)
    }

    @Test func aHeartbeatOnAnotherConnectionAdoptsTheSessionThere() async throws {
        let local = LocalSDK()
        let token = try await local.openSession(connection: 1)
        _ = try await heartbeat(local, token, connection: 9)
        let session = try #require(local.registry.session(token: token))
        #expect(session.connections.contains(9))
        #expect(local.store.sessionRow(id: session.id.rawValue)?.epoch == 2)
    }

    @Test func aClosedSessionIsGoneForItsNextCall() async throws {
        let local = LocalSDK()
        let token = try await local.openSession()
        var close = ReaderGatewayV1.CloseSessionRequest()
        close.sessionToken = token
        _ = try await local.sdk.sessions.closeSession(close, local.context())
        #expect(local.registry.session(token: token) == nil)
        #expect(await failure { try await heartbeat(local, token) }?.reason == .sessionExpired)
    }

    @Test func closingASessionReleasesItsReader() async throws {
        let local = LocalSDK()
        local.location("tml_a", readers: ["tmr_1"])
        let token = try await local.openSession()
        try await local.discover(token, location: "tml_a")
        _ = try await local.connect(token, reader: "tmr_1")
        #expect(local.store.ownership(of: "tmr_1")?.owner != nil)
        var close = ReaderGatewayV1.CloseSessionRequest()
        close.sessionToken = token
        _ = try await local.sdk.sessions.closeSession(close, local.context())
        #expect(local.store.ownership(of: "tmr_1")?.owner == nil)
    }

    @Test func aDetachedSessionPastItsLeaseIsSweptAndItsReaderReleased() async throws {
        let local = LocalSDK { $0.sessionLease = .seconds(30) }
        local.location("tml_a", readers: ["tmr_1"])
        let token = try await local.openSession(connection: 1)
        try await local.discover(token, location: "tml_a")
        _ = try await local.connect(token, reader: "tmr_1")
        let closedAt = local.clock.now
        local.registry.connectionClosed(1, now: closedAt)
        local.clock.advance(by: .seconds(31))
        await local.sdk.sessions.sweepSessions()
        #expect(local.store.ownership(of: "tmr_1")?.owner == nil)
        #expect(await failure { try await heartbeat(local, token, connection: 2) }?.reason == .sessionExpired)
    }

    @Test func anAttachedSessionKeepsItsLeaseThroughSweeps() async throws {
        let local = LocalSDK { $0.sessionLease = .seconds(30) }
        let token = try await local.openSession(connection: 1)
        for _ in 0..<4 {
            local.clock.advance(by: .seconds(20))
            await local.sdk.sessions.sweepSessions()
        }
        _ = try await heartbeat(local, token, connection: 1)
        let id = try #require(local.registry.session(token: token)?.id)
        #expect(try #require(local.store.sessionRow(id: id.rawValue)).leaseExpiresUnixMs > local.clock.nowUnixMs)
    }
}
