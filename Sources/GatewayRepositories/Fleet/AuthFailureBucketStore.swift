import Foundation
import GatewayDomain
import GatewayPostgres

/// The `auth_failure_buckets` table: failed authentications per source address and per
/// account, in token buckets every replica takes from.
///
/// One statement per failure (``takeFailure(_:key:rule:nowUnixMs:)``), the arithmetic of
/// ``AuthFailureBucket/takeFailure(_:nowUnixMs:)`` done in the row's UPSERT, so concurrent
/// failures on several replicas each take their own token. Successful authentications never
/// come here.
public struct AuthFailureBucketStore: Sendable {
    public let client: PostgresClient

    public init(client: PostgresClient) { self.client = client }

    /// Counts one failure against the bucket of (`scope`, `key`) at `nowUnixMs` (a missing
    /// row is a full bucket) and says whether it was counted or found the bucket empty (then
    /// the row is left as it was).
    public func takeFailure(_ scope: AuthLimitScope, key: String, rule: AuthFailureRule, nowUnixMs: Int64) async throws(StoreError) -> AuthFailureDecision {
        // The bucket's content now: its tokens refilled by the time since it was written.
        let refilled = "least($3::float8, b.tokens + greatest(0, extract(epoch FROM $6::timestamptz - b.updated_at)::float8) * $4::float8)"
        let rows = try await client.query(
            """
            INSERT INTO auth_failure_buckets AS b (scope, key, tokens, updated_at, refused)
            VALUES ($1, $2, $3::float8 - $5::float8, $6::timestamptz, false)
            ON CONFLICT (scope, key) DO UPDATE SET
                tokens = CASE WHEN \(refilled) >= $5::float8 THEN \(refilled) - $5::float8 ELSE b.tokens END,
                updated_at = CASE WHEN \(refilled) >= $5::float8 THEN greatest(b.updated_at, $6::timestamptz) ELSE b.updated_at END,
                refused = \(refilled) < $5::float8
            RETURNING b.tokens, (extract(epoch FROM b.updated_at) * 1000)::int8 AS updated_unix_ms, b.refused
            """,
            [
                PostgresValue(scope.rawValue), PostgresValue(key), PostgresValue(rule.burst), PostgresValue(rule.refillPerSecond),
                PostgresValue(rule.costPerFailure), PostgresValue(Self.date(nowUnixMs)),
            ]
        )
        guard let row = rows.first else { throw StoreError(.queryFailed, "the failure bucket UPSERT returned no row") }
        let bucket = AuthFailureBucket(tokens: try row.decode(Double.self, "tokens"), updatedUnixMs: try row.decode(Int64.self, "updated_unix_ms"))
        guard try row.decode(Bool.self, "refused") else { return .counted(tokensLeft: bucket.tokens) }
        return .lockedOut(retryAfter: AuthFailureBucket.retryAfter(tokens: bucket.refilled(rule, nowUnixMs: nowUnixMs), rule: rule))
    }

    /// Deletes the buckets last written before `cutoffUnixMs` (refilled since: the same as no
    /// row); returns how many.
    @discardableResult
    public func deleteBuckets(updatedBefore cutoffUnixMs: Int64) async throws(StoreError) -> Int {
        try await client.execute("DELETE FROM auth_failure_buckets WHERE updated_at < $1", [PostgresValue(Self.date(cutoffUnixMs))])
    }

    static func date(_ unixMs: Int64) -> Date { Date(timeIntervalSince1970: Double(unixMs) / 1000) }
}
