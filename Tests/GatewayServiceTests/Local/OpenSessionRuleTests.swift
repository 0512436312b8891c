@testable import GatewayService
import GatewayWire
import Testing

/// OpenSession's rules with the stores in memory: the token's checks and what a new or
/// resumed session answers.
@Suite("Local rules: OpenSession")
struct OpenSessionRuleTests {
    @Test func anEmptyConnectionTokenIsInvalid() async {
        let local = LocalSDK()
        var request = ReaderGatewayV1.OpenSessionRequest()
        request.posDeviceID = "pos-1"
        let error = await failure { try await local.sdk.sessions.openSession(request, local.context()) }
        #expect(error?.reason == .connectionTokenInvalid)
        #expect(error?.message.contains("CreateConnectionToken") == true)
    }

    @Test func anEmptyDeviceIDIsAnInvalidRequest() async {
        let local = LocalSDK()
        var request = ReaderGatewayV1.OpenSessionRequest()
        request.connectionToken = local.store.addConnectionToken(account: LocalSDK.account)
        let error = await failure { try await local.sdk.sessions.openSession(request, local.context()) }
        #expect(error?.reason == .invalidRequest)
        #expect(error?.message.contains("pos_device_id") == true)
    }

    @Test func aTokenTheStoreDoesNotKnowIsInvalid() async {
        let local = LocalSDK()
        var request = ReaderGatewayV1.OpenSessionRequest()
        request.connectionToken = "ctok_never_minted"
        request.posDeviceID = "pos-1"
        #expect(await failure { try await local.sdk.sessions.openSession(request, local.context()) }?.reason == .connectionTokenInvalid)
    }

    @Test func aTokenPastItsLifetimeIsExpired() async {
        let local = LocalSDK()
        var request = ReaderGatewayV1.OpenSessionRequest()
        request.connectionToken = local.store.addConnectionToken(account: LocalSDK.account, ttl: .seconds(60))
        request.posDeviceID = "pos-1"
        local.clock.advance(by: .seconds(60))
        #expect(await failure { try await local.sdk.sessions.openSession(request, local.context()) }?.reason == .connectionTokenExpired)
    }

    @Test func aTokenJustBeforeItsExpiryOpensASession() async throws {
        let local = LocalSDK()
        var request = ReaderGatewayV1.OpenSessionRequest()
        request.connectionToken = local.store.addConnectionToken(account: LocalSDK.account, ttl: .seconds(60))
        request.posDeviceID = "pos-1"
        local.clock.advance(by: .seconds(59))
        let response = try await local.sdk.sessions.openSession(request, local.context())
        #expect(!response.sessionToken.isEmpty)
    }

    @Test func aNewSessionAnswersItsLeaseAndKeepsItsRowAndItsLaneDefaultsToTheDevice() async throws {
        let local = LocalSDK { $0.sessionLease = .seconds(45) }
        var request = ReaderGatewayV1.OpenSessionRequest()
        request.connectionToken = local.store.addConnectionToken(account: LocalSDK.account, location: "tml_a")
        request.posDeviceID = "pos-7"
        let response = try await local.sdk.sessions.openSession(request, local.context())
        #expect(response.leaseMs == 45_000)
        #expect(!response.resumed)
        let row = try #require(local.store.sessionRow(id: response.sessionID))
        #expect(row.lane == "pos-7")
        #expect(row.locationScope == "tml_a")
        #expect(row.leaseExpiresUnixMs == local.clock.nowUnixMs + 45_000)
        let held = local.registry.session(token: response.sessionToken)
        #expect(held?.accountID == LocalSDK.account)
    }

    @Test func aResumeWithAnUnknownTokenIsAnExpiredSession() async {
        let local = LocalSDK()
        var request = ReaderGatewayV1.OpenSessionRequest()
        request.resumeToken = "not-a-session"
        #expect(await failure { try await local.sdk.sessions.openSession(request, local.context()) }?.reason == .sessionExpired)
    }

    @Test func aResumeAnswersTheSameSessionFromItsRowAtANewEpoch() async throws {
        let local = LocalSDK()
        let token = try await local.openSession()
        let id = try #require(local.registry.session(token: token)?.id)
        var request = ReaderGatewayV1.OpenSessionRequest()
        request.resumeToken = token
        let response = try await local.sdk.sessions.openSession(request, local.context(connection: 2))
        #expect(response.resumed)
        #expect(response.sessionID == id.rawValue)
        #expect(local.store.sessionRow(id: id.rawValue)?.epoch == 2)
    }

    @Test func aResumeAfterTheLeaseRanOutIsAnExpiredSession() async throws {
        let local = LocalSDK { $0.sessionLease = .seconds(30) }
        let token = try await local.openSession()
        local.clock.advance(by: .seconds(30))
        var request = ReaderGatewayV1.OpenSessionRequest()
        request.resumeToken = token
        #expect(await failure { try await local.sdk.sessions.openSession(request, local.context(connection: 2)) }?.reason == .sessionExpired)
    }

    @Test func aStoreOutageIsRetryable() async {
        let local = LocalSDK()
        var request = ReaderGatewayV1.OpenSessionRequest()
        request.connectionToken = local.store.addConnectionToken(account: LocalSDK.account)
        request.posDeviceID = "pos-1"
        local.store.setUnavailable(true)
        let error = await failure { try await local.sdk.sessions.openSession(request, local.context()) }
        #expect(error?.reason == .storeUnavailable)
        #expect(error?.message.contains("retry with backoff") == true)
    }
}
