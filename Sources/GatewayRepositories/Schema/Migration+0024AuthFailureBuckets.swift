import GatewayCore
import GatewayPostgres

extension Migration {
    /// Failed authentications, counted in token buckets every replica shares.
    ///
    /// - `auth_failure_buckets`: one row per (scope, key): `scope` is `source` (the key is a
    ///   source address: IPv4, or an IPv6 /64) or `account` (the key is an account id); the
    ///   row holds the tokens left at `updated_at`, and whether the last failure found the
    ///   bucket empty (`refused`: a lock-out). Only failures write it (one UPSERT each,
    ///   `AuthFailureBucketStore`); a row whose bucket has long refilled is deleted by the
    ///   replica that next finds it stale, so the table holds the recent failures alone.
    ///
    /// An expand step with floor 0.1.0: a new table no 0.1.0 binary reads (a 0.1.0 binary
    /// does not limit failures; it runs beside this schema unchanged).
    static let v0024AuthFailureBuckets = Migration(
        version: 24,
        name: "failed authentications: token buckets per source address and per account",
        compatibleFrom: GatewayVersion(0, 1, 0),
        statements: [
            """
            CREATE TABLE auth_failure_buckets (
                scope       text NOT NULL CHECK (scope IN ('source', 'account')),
                key         text NOT NULL,
                tokens      double precision NOT NULL,
                updated_at  timestamptz NOT NULL,
                refused     boolean NOT NULL DEFAULT false,
                PRIMARY KEY (scope, key)
            )
            """,
            "CREATE INDEX auth_failure_buckets_updated_idx ON auth_failure_buckets (updated_at)",
        ]
    )
}
