import GatewayPostgres

extension SessionStore {
    /// Every open session recorded for `node` gets a lease of `lease` from
    /// now (a drain: the replica no longer holds their connections).
    public func detachSessions(node: String, lease: Duration) async throws(StoreError) {
        try await client.execute(
            """
            UPDATE sdk_sessions SET lease_expires_at = now() + make_interval(secs => $2::double precision)
            WHERE node_id = $1 AND closed_at IS NULL
            """,
            [PostgresValue(node), PostgresValue(Double(lease.components.seconds))]
        )
    }
}
