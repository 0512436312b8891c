import GatewayDomain
import GatewayPostgres
import GatewayRepositories

/// The buckets of failed authentications every replica takes from: PostgreSQL's
/// ``AuthFailureBucketStore`` in the gateway, an in-memory table in the services' own tests.
protocol AuthFailureBuckets: Sendable {
    /// Counts one failure against (`scope`, `key`) at `nowUnixMs`.
    func takeFailure(_ scope: AuthLimitScope, key: String, rule: AuthFailureRule, nowUnixMs: Int64) async throws(StoreError) -> AuthFailureDecision
    /// Deletes the buckets last written before `cutoffUnixMs` (full again by then).
    func deleteBuckets(updatedBefore cutoffUnixMs: Int64) async throws(StoreError) -> Int
}

extension AuthFailureBucketStore: AuthFailureBuckets {}
