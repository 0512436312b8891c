import GatewayCommandLine
import GatewayCore
import GatewayPostgres
import GatewayRepositories

/// `gatewayctl nodes`: every replica registered in PostgreSQL with its release, the newest
/// schema its build knows, its age and its last heartbeat — during a rollout, which replicas
/// run which release.
enum NodeListing {
    static func run(databaseURL: String, output: CtlOutput) async -> ExitCode {
        guard let (client, shown) = CtlDatabase.client(databaseURL) else { return .usage }
        defer { Task { await client.shutdown() } }
        let nodes: [NodeSummary]
        do {
            nodes = try await ClusterStore(client: client).nodeSummaries()
        } catch {
            return CtlDatabase.failed(error, doing: "read the node directory", table: "node directory", in: shown)
        }
        var table = Table(headers: ["NODE", "VERSION", "SCHEMA", "AGE", "HEARTBEAT", "INTERNAL"])
        for node in nodes {
            table.append([
                node.id, node.version ?? "-", node.schema.map(String.init) ?? "-",
                age(node.ageSeconds), age(node.heartbeatAgeSeconds) + " ago", node.internalAddress,
            ])
        }
        output.show(table: table, json: .array(nodes.map { node in
            .object([
                "node": .string(node.id),
                "version": node.version.map(JSONValue.string) ?? .null,
                "schema": node.schema.map { .integer(Int64($0)) } ?? .null,
                "age_seconds": .integer(Int64(node.ageSeconds.rounded())),
                "heartbeat_age_seconds": .integer(Int64(node.heartbeatAgeSeconds.rounded())),
                "internal_address": .string(node.internalAddress),
            ])
        }))
        return .ok
    }

    /// `42s`, `5m07s`, `3h02m`, `2d04h`.
    static func age(_ seconds: Double) -> String {
        let whole = max(0, Int(seconds.rounded(.down)))
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        switch whole {
        case ..<60: return "\(whole)s"
        case ..<3_600: return "\(whole / 60)m\(two(whole % 60))s"
        case ..<86_400: return "\(whole / 3_600)h\(two(whole % 3_600 / 60))m"
        default: return "\(whole / 86_400)d\(two(whole % 86_400 / 3_600))h"
        }
    }
}
