import Foundation
import GatewayDomain
import GatewayPostgres
@testable import GatewayRepositories
import GatewayTestSupport
import Synchronization
import Testing

/// The node directory on a real PostgreSQL: register, heartbeat, reap (exactly once), where a
/// reader's link lives, cluster settings.
@Suite("Cluster store")
struct ClusterStoreTests {
    /// The node lease the reaps use, and how long ago a dead node last heartbeated. A node
    /// registered during the test must stay inside the lease however slowly a loaded machine
    /// runs the test's set-up, so the lease is a day and the dead are two days silent.
    static let lease = Duration.seconds(86_400)
    static let longDead = 2 * 86_400

    typealias Link = OwnershipFixtures.StoredLink

    @Test("migration 0004 adds the node directory, the link columns, the settings and the trigger")
    func migrationApplies() async throws {
        try await withOwnershipDatabase { client in
            let columns = try await client.query(
                """
                SELECT table_name || '.' || column_name AS name FROM information_schema.columns
                WHERE table_schema = 'public' AND (table_name IN ('gateway_nodes', 'cluster_settings')
                   OR (table_name = 'reader_ownership' AND column_name LIKE 'link_%')
                   OR (table_name = 'sdk_sessions' AND column_name = 'location_scope'))
                ORDER BY 1
                """
            ).map { try $0.decode(String.self, "name") }
            #expect(columns == [
                "cluster_settings.name", "cluster_settings.value",
                // fleet_watchers: migration 0012 (each node's WatchFleet watchers).
                "gateway_nodes.fleet_watchers",
                "gateway_nodes.heartbeat_at", "gateway_nodes.internal_address", "gateway_nodes.node_id",
                // schema_version, version: migrations 0018 and 0017 (each replica's schema and release).
                "gateway_nodes.schema_version", "gateway_nodes.started_at", "gateway_nodes.version",
                "reader_ownership.link_detached_at", "reader_ownership.link_epoch", "reader_ownership.link_node",
                "sdk_sessions.location_scope",
            ])
            let triggers = try await client.query(
                "SELECT tgname FROM pg_trigger WHERE tgrelid = 'reader_ownership'::regclass AND NOT tgisinternal ORDER BY 1"
            ).map { try $0.decode(String.self, "tgname") }
            #expect(triggers.contains("reader_ownership_notify"))
            let version = try await client.query("SELECT count(*)::int AS n FROM schema_migrations WHERE version = 4")
            #expect(try version.first?.decode(Int.self, "n") == 1)
        }
    }

    @Test("register, list, heartbeat, deregister")
    func nodeDirectory() async throws {
        try await withOwnershipDatabase { client in
            let cluster = ClusterStore(client: client)
            try await cluster.register(node: "node-b", internalAddress: "127.0.0.1:7002")
            try await cluster.register(node: "node-a", internalAddress: "127.0.0.1:7001")
            let nodes = try await cluster.nodes()
            #expect(nodes.map(\.id) == ["node-a", "node-b"])
            #expect(nodes.map(\.internalAddress) == ["127.0.0.1:7001", "127.0.0.1:7002"])
            #expect(nodes.allSatisfy { abs($0.heartbeatAt.timeIntervalSinceNow) < 60 && $0.startedAt <= $0.heartbeatAt })
            #expect(try await cluster.heartbeat(node: "node-a"))
            #expect(try await cluster.heartbeat(node: "node-unknown") == false)
            try await cluster.deregister(node: "node-a")
            #expect(try await cluster.nodes().map(\.id) == ["node-b"])
            #expect(try await cluster.heartbeat(node: "node-a") == false)
            // Registering again (a new address) refreshes the row.
            try await cluster.register(node: "node-b", internalAddress: "[::1]:7003")
            #expect(try await cluster.nodes().map(\.internalAddress) == ["[::1]:7003"])
        }
    }

    @Test("the node heartbeat carries each node's fleet watchers and returns the other nodes'")
    func heartbeatCarriesFleetWatchers() async throws {
        try await withOwnershipDatabase { client in
            let cluster = ClusterStore(client: client)
            try await cluster.register(node: "node-a", internalAddress: "127.0.0.1:7001")
            try await cluster.register(node: "node-b", internalAddress: "127.0.0.1:7002")
            try await cluster.register(node: "node-c", internalAddress: "127.0.0.1:7003")
            // Nobody watches anywhere.
            #expect(try await cluster.heartbeat(node: "node-a", fleetWatchers: 0) == 0)
            // Two watchers on b: a and c hear of them, b does not count its own.
            #expect(try await cluster.heartbeat(node: "node-b", fleetWatchers: 2) == 0)
            #expect(try await cluster.heartbeat(node: "node-a", fleetWatchers: 0) == 2)
            #expect(try await cluster.heartbeat(node: "node-c", fleetWatchers: 1) == 2)
            #expect(try await cluster.heartbeat(node: "node-b", fleetWatchers: 2) == 1)
            // A node that goes away takes its watchers with it; a reaped node learns it is gone.
            try await cluster.deregister(node: "node-b")
            #expect(try await cluster.heartbeat(node: "node-a", fleetWatchers: 0) == 1)
            #expect(try await cluster.heartbeat(node: "node-b", fleetWatchers: 2) == nil)
        }
    }

    @Test("where a reader's link lives: attached, detached, lost, on a deregistered node")
    func readerHome() async throws {
        try await withOwnershipDatabase { client in
            let fixtures = OwnershipFixtures(client: client)
            let (store, cluster) = try await fixtures.seedCluster(nodes: ["node-a", "node-b"])
            let reader = ReaderID("tmr_home")
            try await fixtures.registerReader(reader)
            #expect(try await cluster.readerHome(reader) == nil, "never attached")
            _ = try await store.readerAttached(reader, node: "node-a")
            #expect(try await cluster.readerHome(reader) == ReaderHome(epoch: LinkEpoch(1), node: "node-a", internalAddress: "127.0.0.1:7001"))
            _ = try await store.readerAttached(reader, node: "node-b")
            #expect(try await cluster.readerHome(reader) == ReaderHome(epoch: LinkEpoch(2), node: "node-b", internalAddress: "127.0.0.1:7002"))
            #expect(try await store.readerDetached(reader, epoch: LinkEpoch(2)))
            #expect(try await cluster.readerHome(reader) == nil, "detached")
            _ = try await store.readerAttached(reader, node: "node-a")
            #expect(try await cluster.readerHome(reader)?.epoch == LinkEpoch(3))
            #expect(try await store.readerLost(reader, epoch: LinkEpoch(3)) == .updated)
            #expect(try await cluster.readerHome(reader) == nil, "lost")
            _ = try await store.readerAttached(reader, node: "node-b")
            try await cluster.deregister(node: "node-b")
            #expect(try await cluster.readerHome(reader) == nil, "its node deregistered")
            #expect(try await fixtures.link(reader) == Link(online: true, epoch: 4, node: nil, detached: true, status: "online"))
            #expect(try await cluster.readerHome(ReaderID("tmr_nobody")) == nil)
        }
    }

    @Test("dead nodes are reaped exactly once by two concurrent reapers, their links detached", arguments: [1, 2, 3, 4, 5])
    func reapExactlyOnce(round: Int) async throws {
        try await withOwnershipDatabase(secondClient: true) { client, replica in
            let fixtures = OwnershipFixtures(client: client)
            try await fixtures.seedAccount()
            let store = OwnershipStore(client: client)
            let cluster = ClusterStore(client: client)
            let otherCluster = ClusterStore(client: replica)
            let dead = (0..<6).map { "node-dead-\(round)-\($0)" }
            let live = "node-live-\(round)"
            for node in dead + [live] { try await cluster.register(node: node, internalAddress: "127.0.0.1:7000") }
            // Two readers on each node; one owned.
            var readersOf: [String: [ReaderID]] = [:]
            for (index, node) in (dead + [live]).enumerated() {
                let owned = ReaderID("tmr_\(round)_\(index)_owned")
                let owner = ReaderOwner(session: SessionID("sess_\(round)_\(index)"), lane: LaneLabel("Lane \(index)"))
                try await fixtures.ownedReader(owned, owner: owner, node: node, store: store)
                let free = ReaderID("tmr_\(round)_\(index)_free")
                try await fixtures.registerReader(free)
                _ = try await store.readerAttached(free, node: node)
                readersOf[node] = [owned, free]
            }
            for node in dead { try await fixtures.ageHeartbeat(node, seconds: Self.longDead) }

            async let first = cluster.reapDeadNodes(lease: Self.lease)
            async let second = otherCluster.reapDeadNodes(lease: Self.lease)
            let (a, b) = try await (first, second)
            #expect(Set(a).isDisjoint(with: b), "no node reaped twice")
            #expect((a + b).sorted() == dead.sorted())
            #expect(try await cluster.reapDeadNodes(lease: Self.lease).isEmpty)
            #expect(try await cluster.nodes().map(\.id) == [live])

            for node in dead {
                #expect(try await cluster.heartbeat(node: node) == false, "a reaped node finds its row gone")
                for reader in readersOf[node] ?? [] {
                    #expect(try await fixtures.link(reader) == Link(online: true, epoch: 1, node: nil, detached: true, status: "online"))
                }
                // The owner keeps its reader while the link is detached.
                #expect(try await store.ownership(of: readersOf[node]![0])?.owner != nil)
            }
            #expect(try await cluster.heartbeat(node: live))
            for reader in readersOf[live] ?? [] {
                #expect(try await fixtures.link(reader) == Link(online: true, epoch: 1, node: live, detached: false, status: "online"))
            }
        }
    }

    @Test("a heartbeat racing a reap: the node is either reaped or alive, never half")
    func heartbeatRacesReap() async throws {
        try await withOwnershipDatabase(secondClient: true) { client, replica in
            let cluster = ClusterStore(client: client)
            let otherCluster = ClusterStore(client: replica)
            for round in 0..<20 {
                let node = "node-\(round)"
                try await cluster.register(node: node, internalAddress: "127.0.0.1:7000")
                try await OwnershipFixtures(client: client).ageHeartbeat(node, seconds: Self.longDead)
                async let beat = cluster.heartbeat(node: node)
                async let reaped = otherCluster.reapDeadNodes(lease: Self.lease)
                let (alive, removed) = try await (beat, reaped)
                let registered = try await cluster.nodes().map(\.id).contains(node)
                // The heartbeat won (the reap re-checked it and left the node), or the reap won.
                #expect(alive == registered)
                #expect(removed.contains(node) == !registered)
                if registered { try await cluster.deregister(node: node) }
            }
        }
    }

    @Test("an attach racing the reap of its node: refused, or recorded and then detached; never left on a missing node")
    func attachRacesReap() async throws {
        try await withOwnershipDatabase(secondClient: true) { client, replica in
            let fixtures = OwnershipFixtures(client: client)
            try await fixtures.seedAccount()
            let store = OwnershipStore(client: client)
            let cluster = ClusterStore(client: client)
            let otherCluster = ClusterStore(client: replica)
            for round in 0..<30 {
                let node = "node-\(round)"
                let reader = ReaderID("tmr_race_\(round)")
                try await fixtures.registerReader(reader)
                try await cluster.register(node: node, internalAddress: "127.0.0.1:7000")
                try await fixtures.ageHeartbeat(node, seconds: Self.longDead)
                async let attach = { () async -> Bool in
                    do throws(StoreError) {
                        _ = try await store.readerAttached(reader, node: node)
                        return true
                    } catch {
                        return false
                    }
                }()
                async let reaped = otherCluster.reapDeadNodes(lease: Self.lease)
                let (attached, removed) = try await (attach, reaped)
                #expect(removed == [node])
                let link = try #require(try await fixtures.link(reader))
                #expect(link.node == nil, "round \(round): the link is not left on the reaped node")
                if attached {
                    #expect(link.online && link.detached, "round \(round): an attach that won is detached by the reap")
                } else {
                    #expect(!link.online && !link.detached)
                }
            }
        }
    }

    @Test("a reap waits for an attach in flight on its node, then detaches the link it committed")
    func reapWaitsForAttachInFlight() async throws {
        let database = try await TestPostgres.database(maximumConnections: 4)
        // Three clients: the attach's transaction, the reaper, and an observer. (A client
        // pipelines statements on its connections: an observer sharing the reaper's client
        // could queue behind the blocked reap.)
        let reaper = try database.makeClient(maximumConnections: 1)
        let observer = try database.makeClient(maximumConnections: 1)
        let client = database.client
        let fixtures = OwnershipFixtures(client: client)
        let (store, _) = try await fixtures.seedCluster(nodes: ["node-old", "node-x"])
        let reader = ReaderID("tmr_in_flight")
        try await fixtures.registerReader(reader)
        _ = try await store.readerAttached(reader, node: "node-old")
        try await fixtures.ageHeartbeat("node-x", seconds: Self.longDead)
        var reap: Task<[String], any Error>?
        var reapWaited = false
        try await client.withTransaction { transaction in
            // The attach statement in a transaction that stays open: it holds node-x FOR KEY SHARE.
            let rows = try await transaction.query(
                OwnershipStatements.readerAttached,
                [PostgresValue(reader.rawValue), nil, PostgresValue("node-x")]
            )
            #expect(try rows.first?.decode(String.self, "outcome") == "updated")
            reap = Self.startReap(ClusterStore(client: reaper))
            let deadline = ContinuousClock.now + .seconds(10)
            for _ in 0..<1_000 where !reapWaited && ContinuousClock.now < deadline {
                // Asked on another connection: inside a transaction, pg_stat_activity is a snapshot.
                let waiting = try await observer.query(
                    "SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%gateway_nodes_remove%' AND datname = current_database()"
                )
                reapWaited = !waiting.isEmpty
                if !reapWaited { try await Task.sleep(for: .milliseconds(10)) }
            }
        }
        #expect(reapWaited, "the reap waits on the node row the attach holds")
        #expect(try await reap?.value == ["node-x"])
        #expect(try await fixtures.link(reader) == Link(online: true, epoch: 2, node: nil, detached: true, status: "online"))
        await reaper.shutdown()
        await observer.shutdown()
        await database.close()
    }

    static func startReap(_ cluster: ClusterStore) -> Task<[String], any Error> {
        Task { try await cluster.reapDeadNodes(lease: Self.lease) }
    }

    @Test("a setting is created once, whatever number of replicas ask at once")
    func settingCreatedOnce() async throws {
        try await withOwnershipDatabase(secondClient: true) { client, replica in
            let clusters = [ClusterStore(client: client), ClusterStore(client: replica)]
            final class Counter: Sendable { let value = Atomic<Int>(0) }
            let made = Counter()
            let values = try await withThrowingTaskGroup(of: String.self) { group in
                for index in 0..<16 {
                    let cluster = clusters[index % 2]
                    group.addTask {
                        try await cluster.setting("internal_ca") {
                            made.value.add(1, ordering: .relaxed)
                            return "ca-\(index)"
                        }
                    }
                }
                var values: [String] = []
                for try await value in group { values.append(value) }
                return values
            }
            #expect(values.count == 16)
            #expect(Set(values).count == 1, "every caller got the same value: \(Set(values))")
            #expect(made.value.load(ordering: .relaxed) >= 1)
            let rows = try await client.query("SELECT value FROM cluster_settings WHERE name = 'internal_ca'")
            #expect(rows.count == 1)
            #expect(try rows.first?.decode(String.self, "value") == values.first)
            // Once it exists, `make` is not called again.
            let again = try await clusters[0].setting("internal_ca") {
                Issue.record("make ran for an existing setting")
                return "other"
            }
            #expect(again == values.first)
            // A failing `make` fails the call and creates nothing.
            struct NoCertificate: Error {}
            await #expect(throws: NoCertificate.self) {
                _ = try await clusters[1].setting("other") { throw NoCertificate() }
            }
            #expect(try await client.query("SELECT 1 FROM cluster_settings WHERE name = 'other'").isEmpty)
        }
    }
}
