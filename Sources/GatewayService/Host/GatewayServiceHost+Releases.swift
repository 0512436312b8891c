import GatewayCore
import GatewayRepositories

extension GatewayServiceHost {
    /// Learns the other replicas' releases from the node directory at start-up and says when
    /// this replica runs beside another release (a rollout or rollback in progress: the
    /// supported skew is one release, docs/operations.md "Upgrades").
    func logReleasesAlongside(_ gateway: Gateway) async {
        let nodes: [NodeRecord]
        do {
            nodes = try await gateway.cluster.nodes()
        } catch {
            logger.warning("could not read the other replicas' releases from the node directory", ["error": error])
            return
        }
        let own = GatewayVersion.current.description
        let others = nodes.filter { $0.id != gateway.node.id }
        let differing = others.filter { $0.version != own }
        guard !differing.isEmpty else { return }
        logger.notice("running beside other releases", [
            "version": own,
            "others": differing.map { "\($0.id)=\($0.version ?? "unversioned")" }.joined(separator: ","),
        ])
    }
}
