@testable import GatewayService
import GatewayWire
import Testing

/// What the SDK surface's registered routes do before its handlers run: a request that does
/// not decode is refused naming its message; a decoded one reaches the handler.
@Suite("Local rules: routes")
struct RouteRuleTests {
    func handler(_ local: LocalSDK, _ path: String) -> MethodHandler? {
        var router = MethodRouter()
        local.sdk.registerMethods(with: &router)
        return router.handlers[path]
    }

    @Test func aRequestThatDoesNotDecodeIsInvalidNamingItsMessage() async throws {
        let local = LocalSDK()
        guard case .unary(let body)? = handler(local, ReaderGatewayV1.Sdk.openSession.path) else {
            Issue.record("OpenSession is not served as a unary method")
            return
        }
        // Field 1, length-delimited, claiming 100 bytes where 1 follows.
        do {
            _ = try await body([0x0A, 0x64, 0x01], local.context())
            Issue.record("a request that does not decode was served")
        } catch {
            #expect(error.reason == .invalidRequest)
            #expect(error.message.contains("OpenSessionRequest"))
        }
    }

    @Test func aDecodedRequestReachesTheHandler() async throws {
        let local = LocalSDK()
        guard case .unary(let body)? = handler(local, ReaderGatewayV1.Sdk.heartbeat.path) else {
            Issue.record("Heartbeat is not served as a unary method")
            return
        }
        var request = ReaderGatewayV1.HeartbeatRequest()
        request.sessionToken = try await local.openSession()
        let bytes = try await body(request.serializedBytes(), local.context())
        let response = try ReaderGatewayV1.HeartbeatResponse(serializedBytes: bytes)
        #expect(response.leaseRemainingMs == 30_000)
    }
}
