import GatewayClient
import GatewayPostgres
import GatewayTestSupport
import Testing

extension ClusterTests {
    /// A replica killed (SIGKILL) in the middle of a webhook delivery holds its claim until the
    /// lease runs out; then another replica claims it and delivers the same event id. Every
    /// replica delivers, so no event waits for the dead one.
    @Test func aDeliveryLeftByAKilledReplicaIsDeliveredByAnother() async throws {
        let receiver = try await WebhookReceiver.start()
        var options = ClusterOptions()
        options.extraArguments = [
            "--webhook-allow-private-addresses", "--webhook-ca-file", receiver.caPath,
            "--webhook-timeout", "4s", "--webhook-lease", "5s", "--webhook-retry-base", "50ms",
        ]
        do {
            try await ClusterFixture.run(options) { cluster in
                try receiver.set("/cluster", "hold")
                let created = try await cluster.withAdmin(port: cluster.replicas[0].port) { admin in
                    try await admin.createWebhookEndpoint(url: receiver.url("/cluster"), events: ["reader.online"])
                }
                let endpoint = try #require(created.endpoint?.id)
                _ = try await cluster.attachReaders(1, ports: [cluster.replicas[1].port], prefix: "WHK")
                try cluster.require(await eventually(timeout: .seconds(30)) { !receiver.requests("/cluster").isEmpty }, "no delivery reached the receiver")
                let event = try #require(receiver.requests("/cluster").first?.eventID)

                // The replica holding the delivery, as PostgreSQL knows it.
                let holder = try await cluster.database.withClient { client in
                    try await client.query("SELECT leased_by FROM webhook_deliveries WHERE event_id = $1 AND endpoint_id = $2", [PostgresValue(event), PostgresValue(endpoint)])
                        .first?.decode(String?.self, "leased_by")
                }
                let killed = try #require(cluster.replicas.first { $0.nodeID != nil && $0.nodeID == holder }, "no replica is node \(holder ?? "nil")")
                await killed.kill9()
                let killedAt = ContinuousClock.now
                try receiver.set("/cluster", "ok")

                let deliveredBy = try await cluster.database.withClient { client -> String? in
                    var row: (state: String, by: String?, attempts: Int64)?
                    _ = try await eventually(timeout: .seconds(60)) {
                        let rows = try await client.query(
                            "SELECT state, leased_by, attempts FROM webhook_deliveries WHERE event_id = $1 AND endpoint_id = $2",
                            [PostgresValue(event), PostgresValue(endpoint)]
                        )
                        guard let first = rows.first else { return false }
                        row = (try first.decode(String.self, "state"), try first.decode(String?.self, "leased_by"), try first.decode(Int64.self, "attempts"))
                        return row?.state == "delivered"
                    }
                    cluster.expect(row?.state == "delivered", "the delivery is \(String(describing: row)) 60 s after its replica was killed")
                    cluster.expect((row?.attempts ?? 0) >= 2, "attempts: \(String(describing: row))")
                    return row?.by
                }
                cluster.expect(deliveredBy != nil && deliveredBy != holder, "delivered by \(deliveredBy ?? "nil"), the killed replica was \(holder ?? "nil")")
                let requests = receiver.requests("/cluster")
                cluster.expect(requests.count >= 2 && requests.allSatisfy { $0.eventID == event }, "the receiver saw \(requests.map(\.eventID))")
                print("cluster: the delivery \(killed.name) held was delivered by \(deliveredBy ?? "?") \(ContinuousClock.now - killedAt) after the kill (lease 5 s)")
            }
        } catch {
            await receiver.stop()
            throw error
        }
        await receiver.stop()
    }
}
