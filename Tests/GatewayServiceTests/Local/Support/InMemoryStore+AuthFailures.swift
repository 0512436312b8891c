import GatewayDomain
import GatewayPostgres
@testable import GatewayService

/// Failed authentications' buckets, as `auth_failure_buckets` keeps them: the same arithmetic
/// (``AuthFailureBucket``) the table's UPSERT does, one row per (scope, key).
extension InMemoryStore: AuthFailureBuckets {
    func takeFailure(_ scope: AuthLimitScope, key: String, rule: AuthFailureRule, nowUnixMs: Int64) async throws(StoreError) -> AuthFailureDecision {
        try run { tables in
            let subject = AuthLockoutCache.Subject(scope, key)
            var bucket = tables.authFailures[subject] ?? AuthFailureBucket(full: rule, nowUnixMs: nowUnixMs)
            let decision = bucket.takeFailure(rule, nowUnixMs: nowUnixMs)
            tables.authFailures[subject] = bucket
            return decision
        }
    }

    func deleteBuckets(updatedBefore cutoffUnixMs: Int64) async throws(StoreError) -> Int {
        try run { tables in
            let before = tables.authFailures.count
            tables.authFailures = tables.authFailures.filter { $0.value.updatedUnixMs >= cutoffUnixMs }
            return before - tables.authFailures.count
        }
    }
}
