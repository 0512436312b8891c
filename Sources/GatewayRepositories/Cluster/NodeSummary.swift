import GatewayPostgres

/// One replica as `gatewayctl nodes` shows it: release, schema and ages by the database's clock.
///
/// Read through `to_jsonb(row)`, so a column a release has not added yet (or an older
/// release does not write) reads as nil instead of failing: the listing works on any schema
/// from migration 0004 on, before and after a rollout.
public struct NodeSummary: Sendable, Equatable {
    public var id: String
    public var internalAddress: String
    /// The replica's release (nil: not recorded by its build).
    public var version: String?
    /// The newest schema the replica's build knows (nil: not recorded by its build).
    public var schema: Int?
    /// Seconds since the replica started.
    public var ageSeconds: Double
    /// Seconds since its last heartbeat.
    public var heartbeatAgeSeconds: Double

    static let query = """
        SELECT n.node_id, n.internal_address,
               to_jsonb(n) ->> 'version' AS version,
               (to_jsonb(n) ->> 'schema_version')::integer AS schema_version,
               extract(epoch FROM now() - n.started_at)::double precision AS age_seconds,
               extract(epoch FROM now() - n.heartbeat_at)::double precision AS heartbeat_age_seconds
        FROM gateway_nodes n ORDER BY n.node_id
        """
}

extension ClusterStore {
    /// Every registered replica with its release, schema and ages.
    public func nodeSummaries() async throws(StoreError) -> [NodeSummary] {
        try await client.query(NodeSummary.query).map { row throws(StoreError) in
            NodeSummary(
                id: try row.decode(String.self, "node_id"),
                internalAddress: try row.decode(String.self, "internal_address"),
                version: try row.decode(String?.self, "version"),
                schema: try row.decode(Int?.self, "schema_version"),
                ageSeconds: try row.decode(Double.self, "age_seconds"),
                heartbeatAgeSeconds: try row.decode(Double.self, "heartbeat_age_seconds")
            )
        }
    }
}
