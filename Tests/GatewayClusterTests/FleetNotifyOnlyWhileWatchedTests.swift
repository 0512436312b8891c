import GatewayClient
import GatewayPostgres
import GatewayWire
import Synchronization
import Testing

extension ClusterTests {
    /// A replica announces its fleet changes on `reader_gateway_fleet` only while some other
    /// replica has a `WatchFleet` watcher: a registration on r1 while nobody watches sends no
    /// NOTIFY; once a watcher on r2 is known to r1 (both heartbeats since), the next
    /// registration on r1 is announced and r2's watcher hears it. Notifications arrive in commit
    /// order, so when the second one's has come, the first one's never will.
    @Test func fleetChangesAreAnnouncedOnlyWhileSomeoneWatches() async throws {
        var options = ClusterOptions()
        options.replicas = 2
        try await ClusterFixture.run(options) { cluster in
            let (r1, r2) = (cluster.replicas[0], cluster.replicas[1])
            let listener = try cluster.postgres.makeClient(maximumConnections: 1)
            let notifications = try await listener.listen("reader_gateway_fleet")
            let heard = Mutex<[String]>([])
            let listening = Task { for await notification in notifications { heard.withLock { $0.append(notification.payload) } } }
            defer { listening.cancel() }
            // r1 has heartbeated since the listener started: it knows nobody watches.
            try cluster.require(await r1HeartbeatsAfterNow(cluster), "r1 did not heartbeat")

            let unwatched = try await cluster.withAdmin(port: r1.port) { try await $0.registerReaders(serials: ["FNW000001"], labelPrefix: "FNW", locationID: cluster.location) }
            let unwatchedID = try #require(unwatched.first?.id)

            let log = FleetWatchLog()
            let watcher = cluster.admin(port: r2.port)
            defer { watcher.connection.close() }
            let watching = Task {
                do {
                    for try await event in try await watcher.watchFleet() { log.record(event) }
                } catch {
                    log.ended("\(error)")
                }
            }
            defer { watching.cancel() }
            try cluster.require(await eventuallyIgnoringErrors { log.snapshotComplete }, "no complete snapshot on r2: \(log.ended ?? "")")
            // r2 records its watcher with its next heartbeat, r1 reads it with its own after that.
            try cluster.require(
                await eventuallyIgnoringErrors {
                    try await cluster.database.withClient { client in
                        try await client.query("SELECT 1 FROM gateway_nodes WHERE node_id LIKE 'r2-%' AND fleet_watchers = 1")
                    }.count == 1
                },
                "r2 never recorded its watcher with its heartbeat"
            )
            try cluster.require(await r1HeartbeatsAfterNow(cluster), "r1 did not heartbeat after r2 recorded its watcher")

            let watched = try await cluster.withAdmin(port: r1.port) { try await $0.registerReaders(serials: ["FNW000002"], labelPrefix: "FNW", locationID: cluster.location) }
            let watchedID = try #require(watched.first?.id)
            let announced = await eventuallyIgnoringErrors { heard.withLock { $0.contains { $0.contains(watchedID) } } }
            cluster.expect(announced, "r1 did not announce a registration while r2 had a watcher: \(heard.withLock { $0 })")
            cluster.expect(!heard.withLock { $0.contains { $0.contains(unwatchedID) } }, "r1 announced a registration while nobody watched: \(heard.withLock { $0 })")
            cluster.expect(await eventuallyIgnoringErrors { log.reader(watchedID) != nil }, "r2's watcher did not hear of \(watchedID)")
            await listener.shutdown()
        }
    }

    /// Waits until r1's node row shows a heartbeat later than now (PostgreSQL's clock).
    private func r1HeartbeatsAfterNow(_ cluster: ClusterFixture) async -> Bool {
        guard let now = try? await cluster.database.withClient({ client in try await client.query("SELECT now()::text AS now")[0].decode(String.self, "now") }) else { return false }
        return await eventuallyIgnoringErrors {
            try await cluster.database.withClient { client in
                try await client.query("SELECT 1 FROM gateway_nodes WHERE node_id LIKE 'r1-%' AND heartbeat_at > $1::timestamptz", [PostgresValue(now)])
            }.count == 1
        }
    }
}
