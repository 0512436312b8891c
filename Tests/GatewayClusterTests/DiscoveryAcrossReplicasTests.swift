import GatewayClient
import GatewayWire
import Testing

extension ClusterTests {
    /// A lane discovers twice on the replica holding its session, which is then killed with
    /// kill -9 while the readers stay attached to the other replica. The lane's session
    /// resumes there (through the load balancer), and without discovering again: a reader from
    /// the superseded discovery is still refused with STALE_DISCOVERY, and a reader from the
    /// latest discovery connects and takes a command. (Before the session's discovery was kept
    /// with its row, the resumed session had no discovery at all on its new replica, and every
    /// connect failed with STALE_DISCOVERY.)
    @Test func discoveryStaysValidWhenTheSessionResumesOnAnotherReplica() async throws {
        var options = ClusterOptions()
        options.replicas = 2
        try await ClusterFixture.run(options) { cluster in
            let lane = try await cluster.lane("Lane 1", port: cluster.balancerPort)
            let sessionID = try #require(lane.sessionID)
            let homeNode = try await cluster.database.openSessions()[sessionID]
            let home = try #require(cluster.replica(ofNode: homeNode), "no replica holds the session (node \(homeNode ?? "nil"))")
            let other = try #require(cluster.replicas.first { $0 !== home })
            let readers = try await cluster.attachReaders(2, ports: [other.port], prefix: "DSC")
            let wanted = try #require(readers[0].readerID)

            let superseded = try await lane.discover(location: cluster.location)
            let latest = try await lane.discover(location: cluster.location)
            let stale = try #require(superseded.first { $0.id == wanted })
            let fresh = try #require(latest.first { $0.id == wanted })
            try cluster.require(stale.discoveryID != fresh.discoveryID, "both discoveries answered as \(fresh.discoveryID)")

            await home.kill9()
            let moved = await eventuallyIgnoringErrors(timeout: .seconds(30), interval: .milliseconds(100)) {
                guard lane.resumes >= 1 else { return false }
                return cluster.replica(ofNode: try await cluster.database.openSessions()[sessionID]) === other
            }
            try cluster.require(moved, "the lane's session did not resume on \(other.name) after kill -9 of \(home.name): \(lane.recordedEvents)")

            do {
                try await lane.connect(stale, failIfInUse: false)
                cluster.expect(false, "a reader from the superseded \(stale.discoveryID) connected after the session moved")
            } catch let error as TerminalError {
                cluster.expect(error.code == .staleDiscovery, "the superseded discovery's reader: expected staleDiscovery, got \(error)")
            }
            let connected = try await lane.connect(fresh, failIfInUse: false)
            cluster.expect(connected.reader.id == wanted, "connected \(connected.reader.id) instead of \(wanted)")
            try await lane.display()
            let row = try await cluster.database.ownership()[wanted]
            cluster.expect(row?.session == sessionID, "owner in PostgreSQL: \(String(describing: row))")
        }
    }
}
