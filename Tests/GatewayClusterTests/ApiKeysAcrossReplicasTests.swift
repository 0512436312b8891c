import GatewayClient
import GatewayWire
import Testing

extension ClusterTests {
    /// A key revoked through one replica is refused by every replica on its very next call
    /// (keys are read from PostgreSQL on each call, never cached): well within one second.
    @Test func aRevokedKeyIsRefusedOnEveryReplicaAtItsNextCall() async throws {
        try await ClusterFixture.run(ClusterOptions()) { cluster in
            let created = try await cluster.withAdmin(port: cluster.replicas[0].port) { admin in
                try await admin.createApiKey(name: "support tool", permissions: Self.readAll)
            }
            let keyID = try #require(created.key?.id)
            let clients = cluster.replicas.map { cluster.admin(port: $0.port, secretKey: created.secret) }
            defer { for client in clients { client.connection.close() } }
            for client in clients { _ = try await client.listReaders() }

            let revoked = try await cluster.withAdmin(port: cluster.replicas[1].port) { try await $0.revokeApiKey(keyID) }
            try cluster.require(revoked.revokedUnixMs > 0, "the key was not revoked: \(revoked)")
            for (index, client) in clients.enumerated() {
                do {
                    _ = try await client.listReaders()
                    try cluster.require(false, "replica \(index + 1) served a revoked key")
                } catch let error as RPCError {
                    try cluster.require(error.reason == .secretKeyRetired && error.message.contains("revoked"), "replica \(index + 1): \(error)")
                }
            }
        }
    }

    /// The `WatchFleet` streams a key opened on every replica end with `SECRET_KEY_RETIRED`
    /// once the key is revoked through one of them (the revocation's NOTIFY reaches them all).
    @Test func aRevokedKeysWatchersEndOnEveryReplica() async throws {
        try await ClusterFixture.run(ClusterOptions()) { cluster in
            let created = try await cluster.withAdmin(port: cluster.replicas[0].port) { admin in
                try await admin.createApiKey(name: "dashboard", permissions: Self.readAll)
            }
            let keyID = try #require(created.key?.id)
            let logs = cluster.replicas.map { _ in FleetWatchLog() }
            let clients = cluster.replicas.map { cluster.admin(port: $0.port, secretKey: created.secret) }
            defer { for client in clients { client.connection.close() } }
            let watching = zip(clients, logs).map { client, log in
                Task {
                    do {
                        for try await event in try await client.watchFleet() { log.record(event) }
                        log.ended("the stream ended")
                    } catch let error as RPCError {
                        log.ended("\(error.reason)")
                    } catch {
                        log.ended("\(error)")
                    }
                }
            }
            defer { for task in watching { task.cancel() } }
            for (index, log) in logs.enumerated() {
                try cluster.require(await eventuallyIgnoringErrors { log.snapshotComplete }, "no snapshot on replica \(index + 1): \(log.ended ?? "")")
            }

            let revokedAt = ContinuousClock.now
            _ = try await cluster.withAdmin(port: cluster.replicas[2].port) { try await $0.revokeApiKey(keyID) }
            for (index, log) in logs.enumerated() {
                try cluster.require(await eventuallyIgnoringErrors { log.ended != nil }, "replica \(index + 1)'s watcher of the revoked key still runs")
                try cluster.require(log.ended == "\(ReaderGatewayV1.ErrorReason.secretKeyRetired)", "replica \(index + 1)'s watcher ended with \(log.ended ?? "")")
            }
            print("cluster: every replica ended the revoked key's watcher \(ContinuousClock.now - revokedAt) after the revocation was sent")
        }
    }

    /// A key limited to one location sees none of another location's readers or history, and
    /// mints tokens only for its own location, on whichever replica it calls.
    @Test func aLocationLimitedKeySeesOnlyItsLocationOnEveryReplica() async throws {
        var options = ClusterOptions()
        options.replicas = 2
        try await ClusterFixture.run(options) { cluster in
            let mine = try await cluster.attachReaders(1, ports: [cluster.replicas[0].port], prefix: "LIM")[0]
            let mineID = try #require(mine.readerID)
            let (other, created) = try await cluster.withAdmin(port: cluster.replicas[0].port) { admin in
                let other = try await admin.createLocation(displayName: "Other street")
                let readers = try await admin.registerReaders(serials: ["OTH000001"], labelPrefix: "OTH", locationID: other.id, deviceType: .simulatedWiseposE)
                var permissions = Self.readAll
                permissions.tokens = .write
                let key = try await admin.createApiKey(name: "store", permissions: permissions, locationIDs: [cluster.location])
                return (readers[0].id, key)
            }
            for replica in cluster.replicas {
                let client = cluster.admin(port: replica.port, secretKey: created.secret)
                defer { client.connection.close() }
                let listed = try await client.listReaders().map(\.id)
                try cluster.require(listed == [mineID], "port \(replica.port) listed \(listed)")
                try cluster.require(try await client.listLocations().map(\.id) == [cluster.location], "port \(replica.port) lists other locations")
                for call in [{ _ = try await client.getReader(other) }, { _ = try await client.ownershipHistory(readerID: other) }] {
                    do {
                        try await call()
                        try cluster.require(false, "port \(replica.port) showed the other location's reader")
                    } catch let error as RPCError {
                        try cluster.require(error.reason == .readerNotFound, "port \(replica.port): \(error)")
                    }
                }
                let token = try await client.createConnectionToken()
                try cluster.require(token.locationID == cluster.location, "port \(replica.port) minted a token for \(token.locationID)")
            }
        }
    }

    static var readAll: ReaderGatewayV1.ApiKeyPermissions {
        var permissions = ReaderGatewayV1.ApiKeyPermissions()
        permissions.locations = .read
        permissions.readers = .read
        permissions.ownership = .read
        permissions.tokens = .read
        permissions.updates = .read
        permissions.webhooks = .read
        permissions.events = .read
        permissions.keys = .read
        return permissions
    }
}
