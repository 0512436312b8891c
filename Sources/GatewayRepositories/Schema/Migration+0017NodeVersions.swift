import GatewayCore
import GatewayPostgres

extension Migration {
    /// Each replica's release in the node registry (`gateway_nodes.version`), so that operators
    /// (`gatewayctl nodes`) and the replicas themselves see which versions run side by side
    /// during a rollout. An expand step: NULL for a replica of a release that does not write it.
    static let v0017NodeVersions = Migration(
        version: 17,
        name: "node registry: each replica's release",
        compatibleFrom: GatewayVersion(0, 1, 0),
        statements: [
            "ALTER TABLE gateway_nodes ADD COLUMN version text",
        ]
    )
}
