import GatewayCore
import GatewayOperations
import GatewayPostgres

/// A service that makes store calls whose failure its caller cannot act on: a clean-up after
/// the answer is decided, or a record that a later sweep or reconcile repeats. Such a failure
/// is logged, with what it leaves behind, and counted in `reader_gateway_store_errors_total`;
/// it is never dropped without a trace.
protocol StoreFollowUps {
    var logger: Logger { get }
    var metrics: GatewayMetrics { get }
}

extension StoreFollowUps {
    /// Runs `body`; on failure logs "`what` failed: `leaves`" and counts the error. Returns
    /// nil when it failed.
    @discardableResult
    func followUp<T>(_ what: String, leaves consequence: String, _ body: () async throws -> T) async -> T? {
        do {
            return try await body()
        } catch {
            metrics.storeErrors.labels(StoreErrorKind(error)).increment()
            logger.warning("\(what) failed: \(consequence)", ["error": "\(error)"])
            return nil
        }
    }
}

extension StoreErrorKind {
    /// The metric's kind for a store error (anything else counts as a failed query).
    init(_ error: any Error) {
        guard let error = error as? StoreError else {
            self = .query
            return
        }
        switch error.code {
        case .connectionFailed, .connectionLost, .closed, .notPrimary: self = .connection
        case .timeout: self = .timeout
        case .serializationFailure, .uniqueViolation: self = .conflict
        default: self = .query
        }
    }
}
