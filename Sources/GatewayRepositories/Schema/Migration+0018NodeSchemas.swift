import GatewayCore
import GatewayPostgres

extension Migration {
    /// The newest schema each replica's build knows (`gateway_nodes.schema_version`), beside its
    /// release: during a rollout `gatewayctl nodes` shows which replicas run behind the
    /// database's schema (on the compatibility window) and which migrated it. An expand step
    /// with floor 0.1.0: a 0.1.0 replica keeps running on it and leaves the column NULL.
    static let v0018NodeSchemas = Migration(
        version: 18,
        name: "node registry: the newest schema each replica knows",
        compatibleFrom: GatewayVersion(0, 1, 0),
        statements: [
            "ALTER TABLE gateway_nodes ADD COLUMN schema_version integer",
        ]
    )
}
