import GatewayCore
import GatewayOperations
import GatewayPostgres
@testable import GatewayService
import Testing

/// A store call whose failure no caller can act on is counted (and logged), never dropped.
@Suite("store follow-ups")
struct StoreFollowUpTests {
    struct Probe: StoreFollowUps {
        let logger = Logger(component: "test")
        let metrics = GatewayMetrics(callMethods: [])
    }

    @Test("a failed follow-up returns nil and counts its kind in reader_gateway_store_errors_total", arguments: [
        (StoreError.Code.connectionLost, StoreErrorKind.connection),
        (StoreError.Code.timeout, StoreErrorKind.timeout),
        (StoreError.Code.serializationFailure, StoreErrorKind.conflict),
        (StoreError.Code.queryFailed, StoreErrorKind.query),
    ])
    func failureIsCounted(code: StoreError.Code, kind: StoreErrorKind) async {
        let probe = Probe()
        let result: Int? = await probe.followUp("recording something", leaves: "nothing worse") {
            throw StoreError(code, "the test's failure")
        }
        #expect(result == nil)
        #expect(probe.metrics.storeErrors.labels(kind).value == 1)
        let others = [StoreErrorKind.connection, .query, .timeout, .conflict].filter { $0 != kind }
        #expect(others.allSatisfy { probe.metrics.storeErrors.labels($0).value == 0 })
    }

    @Test("a follow-up that works returns its value and counts nothing")
    func successIsNotCounted() async {
        let probe = Probe()
        #expect(await probe.followUp("recording something", leaves: "nothing worse") { 42 } == 42)
        #expect([StoreErrorKind.connection, .query, .timeout, .conflict].allSatisfy { probe.metrics.storeErrors.labels($0).value == 0 })
    }
}
