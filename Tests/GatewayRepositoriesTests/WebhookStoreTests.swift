import Foundation
import GatewayDomain
import GatewayPostgres
@testable import GatewayRepositories
import GatewayTestKit
import Testing

/// The webhook tables (migration 25): endpoints changed with their audit row in the same
/// statement; the queue filled by the trigger on `events`, in the event's transaction; claims
/// leased with `FOR UPDATE SKIP LOCKED`, one delivery per reader and endpoint at a time in the
/// order of the events; failures retried, given up, and the endpoint disabled after the window.
@Suite("Webhook store")
struct WebhookStoreTests {
    static let account = OwnershipFixtures.account

    static func audit(_ action: String, account: String = account, target: String? = nil) -> AuditEntry {
        AuditEntry(accountID: account, action: action, actor: AuditActor(keyID: "key_ops", keyName: "ops", sourceAddress: "192.0.2.1:4000"), targetID: target)
    }

    /// Writes an event the way every writer does (the 0021 function); its id.
    @discardableResult
    static func append(_ client: PostgresClient, _ type: String, reader: String?, account: String = account) async throws -> String {
        let rows = try await client.query(
            "SELECT gateway_event_append($1, $2, $3, NULL, jsonb_build_object('object', 'test')) AS id",
            [PostgresValue(account), PostgresValue(type), reader.map { PostgresValue($0) }]
        )
        return try #require(try rows.first?.decode(String.self, "id"))
    }

    static func queued(_ client: PostgresClient, endpoint: String) async throws -> [String] {
        let rows = try await client.query(
            "SELECT event_id FROM webhook_deliveries WHERE endpoint_id = $1 ORDER BY id", [PostgresValue(endpoint)]
        )
        var ids: [String] = []
        for row in rows { ids.append(try row.decode(String.self, "event_id")) }
        return ids
    }

    /// The account seeded, and one endpoint wanting every event.
    static func seededWithEndpointForEverything(_ client: PostgresClient) async throws -> (WebhookStore, WebhookEndpoint) {
        try await OwnershipFixtures(client: client).seedAccount()
        let store = WebhookStore(client: client)
        let (endpoint, _) = try await store.create(
            account: account, url: "https://hooks.example.com/", description: "", enabledEvents: ["*"], audit: audit("CreateWebhookEndpoint")
        )
        return (store, endpoint)
    }

    static func auditActions(_ client: PostgresClient) async throws -> [String] {
        try await AuditStore(client: client).events(account: account, filter: AuditFilter(), beforeSeq: nil, limit: 100).reversed().map(\.entry.action)
    }

    @Test("endpoints are created, updated and deleted with their audit row; the queue fills with the events each wants, in the event's transaction")
    func endpointsAndTheQueue() async throws {
        try await withOwnershipDatabase { client in
            try await OwnershipFixtures(client: client).seedAccount()
            try await OwnershipSchemaFixtures.insertAccount(client, id: "acct_other", location: "loc_other")
            let store = WebhookStore(client: client)
            let (all, secret) = try await store.create(
                account: Self.account, url: "https://hooks.example.com/all", description: "all", enabledEvents: ["*"], audit: Self.audit("CreateWebhookEndpoint")
            )
            #expect(all.id.hasPrefix("we_") && all.id.count == 27 && secret.hasPrefix("whsec_") && secret.count == 49)
            let (online, _) = try await store.create(
                account: Self.account, url: "https://hooks.example.com/online", description: "", enabledEvents: [EventType.readerOnline],
                audit: Self.audit("CreateWebhookEndpoint")
            )
            #expect(try await store.endpoints(account: Self.account).map(\.id).sorted() == [all.id, online.id].sorted())
            #expect(try await store.endpoints(account: "acct_other").isEmpty)
            let stored = try #require(try await client.query("SELECT secret FROM webhook_endpoints WHERE id = $1", [PostgresValue(all.id)]).first)
            #expect(try stored.decode(String.self, "secret") == secret)

            let first = try await Self.append(client, EventType.readerOnline, reader: "tmr_1")
            let second = try await Self.append(client, EventType.readerOffline, reader: "tmr_1")
            _ = try await Self.append(client, EventType.readerOnline, reader: "tmr_9", account: "acct_other")
            // An event whose transaction rolls back leaves no delivery either.
            await #expect(throws: (any Error).self) {
                try await client.withTransaction { transaction in
                    try await transaction.execute("SELECT gateway_event_append($1, 'reader.online', 'tmr_1', NULL, '{}'::jsonb)", [PostgresValue(Self.account)])
                    try await transaction.execute("SELECT 1 / 0")
                }
            }
            #expect(try await Self.queued(client, endpoint: all.id) == [first, second])
            #expect(try await Self.queued(client, endpoint: online.id) == [first])

            // Disabled: no longer queued for; the change has its audit row.
            let disabled = try #require(try await store.update(online.id, account: Self.account, change: WebhookEndpointChange(enabled: false), audit: Self.audit("UpdateWebhookEndpoint")))
            #expect(disabled.disabledReason == .requested && !disabled.isEnabled)
            _ = try await Self.append(client, EventType.readerOnline, reader: "tmr_2")
            #expect(try await Self.queued(client, endpoint: online.id) == [first])
            #expect(try await Self.queued(client, endpoint: all.id).count == 3)
            let changed = try #require(try await store.update(
                online.id, account: Self.account,
                change: WebhookEndpointChange(url: "https://hooks.example.com/v2", enabledEvents: [EventType.readerOnline, EventType.readerOffline], enabled: true),
                audit: Self.audit("UpdateWebhookEndpoint")
            ))
            #expect(changed.isEnabled && changed.url == "https://hooks.example.com/v2" && changed.enabledEvents == ["reader.online", "reader.offline"])
            // Another account's endpoint is not found, and nothing is audited for it.
            #expect(try await store.update(all.id, account: "acct_other", change: WebhookEndpointChange(enabled: false), audit: Self.audit("UpdateWebhookEndpoint")) == nil)
            #expect(try await store.delete(all.id, account: "acct_other", audit: Self.audit("DeleteWebhookEndpoint")) == nil)

            let deleted = try #require(try await store.delete(all.id, account: Self.account, audit: Self.audit("DeleteWebhookEndpoint")))
            #expect(deleted.id == all.id)
            #expect(try await Self.queued(client, endpoint: all.id).isEmpty)
            #expect(try await store.endpoints(account: Self.account).map(\.id) == [online.id])
            #expect(try await Self.auditActions(client) == [
                "CreateWebhookEndpoint", "CreateWebhookEndpoint", "UpdateWebhookEndpoint", "UpdateWebhookEndpoint", "DeleteWebhookEndpoint",
            ])
        }
    }

    @Test("a claim takes each reader's oldest pending event only, leases it against other replicas, and gives it to another once the lease expires")
    func claimsKeepReaderOrderAndLeases() async throws {
        try await withOwnershipDatabase(secondClient: true) { client, replica in
            let (store, endpoint) = try await Self.seededWithEndpointForEverything(client)
            let other = WebhookStore(client: replica)
            let r1a = try await Self.append(client, EventType.readerOnline, reader: "tmr_1")
            let r1b = try await Self.append(client, EventType.readerOffline, reader: "tmr_1")
            let r2 = try await Self.append(client, EventType.readerOnline, reader: "tmr_2")
            let blocked = try await Self.append(client, EventType.tapToPayAccountBlocked, reader: nil)
            #expect(try await store.endpointsWithDueDeliveries(excluding: []) == [endpoint.id])
            #expect(try await store.endpointsWithDueDeliveries(excluding: [endpoint.id]).isEmpty)

            let claimed = try await store.claim(endpoint: endpoint.id, limit: 10, leaseMs: 60_000, replica: "node-a")
            #expect(claimed.map(\.event.id) == [r1a, r2, blocked])
            #expect(claimed.allSatisfy { $0.attempt == 1 && $0.url == "https://hooks.example.com/" && $0.secret.hasPrefix("whsec_") })
            #expect(claimed.first?.event.type == EventType.readerOnline && claimed.first?.event.readerID == "tmr_1")
            // Leased: another replica gets nothing, not even tmr_1's next event.
            #expect(try await other.claim(endpoint: endpoint.id, limit: 10, leaseMs: 60_000, replica: "node-b").isEmpty)

            try await store.delivered(claimed[0].id, status: 200)
            let next = try await other.claim(endpoint: endpoint.id, limit: 10, leaseMs: 1, replica: "node-b")
            #expect(next.map(\.event.id) == [r1b])
            // node-b's lease of 1 ms runs out (it died): node-a claims the same delivery, a second attempt.
            var again: [WebhookDelivery] = []
            #expect(try await eventually {
                again = try await store.claim(endpoint: endpoint.id, limit: 10, leaseMs: 60_000, replica: "node-a")
                return !again.isEmpty
            })
            #expect(again.map(\.id) == [next[0].id] && again[0].attempt == 2 && again[0].event.id == r1b)

            // Retention deletes an event with its deliveries: a pending one no longer holds its
            // reader's later events back.
            let r2b = try await Self.append(client, EventType.readerOffline, reader: "tmr_2")
            try await client.execute("DELETE FROM events WHERE id = $1", [PostgresValue(r2)])
            #expect(try await Self.queued(client, endpoint: endpoint.id).contains(r2) == false)
            let afterRetention = try await store.claim(endpoint: endpoint.id, limit: 10, leaseMs: 60_000, replica: "node-a")
            #expect(afterRetention.map(\.event.id) == [r2b])
        }
    }

    @Test("a delivery handed back at shutdown is claimable at once by another replica, its attempt not counted; only the replica holding the lease can hand it back")
    func handBack() async throws {
        try await withOwnershipDatabase(secondClient: true) { client, replica in
            let (store, endpoint) = try await Self.seededWithEndpointForEverything(client)
            let other = WebhookStore(client: replica)
            let event = try await Self.append(client, EventType.readerOnline, reader: "tmr_1")
            let claimed = try #require(try await store.claim(endpoint: endpoint.id, limit: 10, leaseMs: 60_000, replica: "node-a").first)
            #expect(claimed.attempt == 1)
            // Not node-b's to give back: its lease stands.
            #expect(try await other.handBack(claimed.id, replica: "node-b") == false)
            #expect(try await other.claim(endpoint: endpoint.id, limit: 10, leaseMs: 60_000, replica: "node-b").isEmpty)

            #expect(try await store.handBack(claimed.id, replica: "node-a"))
            let taken = try await other.claim(endpoint: endpoint.id, limit: 10, leaseMs: 60_000, replica: "node-b")
            #expect(taken.map(\.id) == [claimed.id] && taken.first?.attempt == 1 && taken.first?.event.id == event)
            // node-a's lease is gone; giving it back again changes nothing, nor once delivered.
            #expect(try await store.handBack(claimed.id, replica: "node-a") == false)
            try await other.delivered(claimed.id, status: 200)
            #expect(try await other.handBack(claimed.id, replica: "node-b") == false)
            let row = try #require(try await client.query(
                "SELECT state, attempts, leased_by FROM webhook_deliveries WHERE id = $1", [PostgresValue(claimed.id)]
            ).first)
            #expect(try row.decode(String.self, "state") == "delivered" && row.decode(Int64.self, "attempts") == 1)
            #expect(try row.decode(String?.self, "leased_by") == "node-b")
        }
    }

    @Test("two replicas claiming at once never claim the same delivery (SKIP LOCKED), and together claim every one")
    func concurrentClaimsAreDisjoint() async throws {
        try await withOwnershipDatabase(secondClient: true) { client, replica in
            let (store, endpoint) = try await Self.seededWithEndpointForEverything(client)
            for index in 0..<60 { _ = try await Self.append(client, EventType.readerOnline, reader: "tmr_\(index)") }
            async let a = store.claim(endpoint: endpoint.id, limit: 40, leaseMs: 60_000, replica: "node-a")
            async let b = WebhookStore(client: replica).claim(endpoint: endpoint.id, limit: 40, leaseMs: 60_000, replica: "node-b")
            let (first, second) = try await (a, b)
            #expect(Set(first.map(\.id)).isDisjoint(with: second.map(\.id)))
            #expect(first.count + second.count == 60 && first.count <= 40 && second.count <= 40)
        }
    }

    @Test("a failed attempt is due again after its backoff; a success ends the endpoint's failing streak; past the window the delivery is given up and the endpoint disabled with its event")
    func failuresRetryAndDisable() async throws {
        try await withOwnershipDatabase { client in
            try await OwnershipFixtures(client: client).seedAccount()
            let store = WebhookStore(client: client)
            let (failing, _) = try await store.create(
                account: Self.account, url: "https://down.example.com/", description: "down", enabledEvents: ["*"], audit: Self.audit("CreateWebhookEndpoint")
            )
            let (healthy, _) = try await store.create(
                account: Self.account, url: "https://up.example.com/", description: "", enabledEvents: [EventType.webhookEndpointDisabled],
                audit: Self.audit("CreateWebhookEndpoint")
            )
            let event = try await Self.append(client, EventType.readerOnline, reader: "tmr_1")
            let hour: Int64 = 3_600_000
            let first = try #require(try await store.claim(endpoint: failing.id, limit: 1, leaseMs: 60_000, replica: "n").first)
            #expect(try await store.failed(first.id, status: 500, error: "HTTP 500", retryInMs: hour, windowMs: 24 * hour) == .retrying)
            #expect(try await store.endpoint(failing.id, account: Self.account)?.failingSinceUnixMs != nil)
            // Not due for an hour.
            #expect(try await store.claim(endpoint: failing.id, limit: 1, leaseMs: 60_000, replica: "n").isEmpty)
            try await client.execute("UPDATE webhook_deliveries SET next_attempt_at = now() WHERE id = $1", [PostgresValue(first.id)])
            let second = try #require(try await store.claim(endpoint: failing.id, limit: 1, leaseMs: 60_000, replica: "n").first)
            #expect(second.id == first.id && second.attempt == 2 && second.event.id == event)
            try await store.delivered(second.id, status: 204)
            #expect(try await store.endpoint(failing.id, account: Self.account)?.failingSinceUnixMs == nil)
            #expect(try await store.failed(second.id, status: 500, error: "late", retryInMs: 0, windowMs: hour) == .alreadyFinished)

            // A delivery queued longer than the window is given up; the endpoint stays enabled
            // while its streak is younger than the window.
            _ = try await Self.append(client, EventType.readerOffline, reader: "tmr_1")
            try await client.execute("UPDATE webhook_deliveries SET created = now() - interval '2 hours' WHERE state = 'pending'")
            let old = try #require(try await store.claim(endpoint: failing.id, limit: 1, leaseMs: 60_000, replica: "n").first)
            #expect(try await store.failed(old.id, status: nil, error: "connection refused", retryInMs: 0, windowMs: hour) == .gaveUp)
            #expect(try await store.endpoint(failing.id, account: Self.account)?.isEnabled == true)

            // Failing for longer than the window: disabled, its pending deliveries given up, the event written.
            _ = try await Self.append(client, EventType.readerOnline, reader: "tmr_2")
            _ = try await Self.append(client, EventType.readerOnline, reader: "tmr_3")
            try await client.execute("UPDATE webhook_endpoints SET failing_since = now() - interval '2 hours' WHERE id = $1", [PostgresValue(failing.id)])
            let last = try #require(try await store.claim(endpoint: failing.id, limit: 1, leaseMs: 60_000, replica: "n").first)
            #expect(try await store.failed(last.id, status: 503, error: "HTTP 503", retryInMs: 0, windowMs: hour) == .endpointDisabled)
            let off = try #require(try await store.endpoint(failing.id, account: Self.account))
            #expect(off.disabledReason == .failing)
            let states = try await client.query("SELECT state FROM webhook_deliveries WHERE endpoint_id = $1 AND state = 'pending'", [PostgresValue(failing.id)])
            #expect(states.isEmpty)
            let written = try await EventStore(client: client).events(
                account: Self.account, filter: EventFilter(types: [EventType.webhookEndpointDisabled]), beforeSeq: nil, limit: 10
            )
            #expect(written.count == 1 && written[0].objectJSON.contains(failing.id) && written[0].objectJSON.contains("\"disabled_reason\": \"failing\""))
            // Queued for the account's other endpoint that wants it, not for the disabled one.
            #expect(try await Self.queued(client, endpoint: healthy.id) == written.map(\.id))
            #expect(!(try await Self.queued(client, endpoint: failing.id)).contains(written[0].id))
            let summaries = try await store.queueSummaries()
            #expect(summaries.first { $0.endpointID == healthy.id }?.pending == 1)
            #expect(summaries.first { $0.endpointID == failing.id }?.pending == 0)
        }
    }

    @Test("a resend queues the same event again for one endpoint with its audit row; a range resend queues the events the endpoint wants")
    func resends() async throws {
        try await withOwnershipDatabase { client in
            try await OwnershipFixtures(client: client).seedAccount()
            try await OwnershipSchemaFixtures.insertAccount(client, id: "acct_other", location: "loc_other")
            let store = WebhookStore(client: client)
            let (endpoint, _) = try await store.create(
                account: Self.account, url: "https://hooks.example.com/", description: "", enabledEvents: [EventType.readerOnline],
                audit: Self.audit("CreateWebhookEndpoint")
            )
            let (foreign, _) = try await store.create(
                account: "acct_other", url: "https://hooks.example.com/", description: "", enabledEvents: ["*"],
                audit: Self.audit("CreateWebhookEndpoint", account: "acct_other")
            )
            let online = try await Self.append(client, EventType.readerOnline, reader: "tmr_1")
            let offline = try await Self.append(client, EventType.readerOffline, reader: "tmr_1")
            let online2 = try await Self.append(client, EventType.readerOnline, reader: "tmr_2")
            #expect(try await store.resend(event: offline, endpoint: endpoint.id, account: Self.account, audit: Self.audit("ResendEvent")))
            #expect(try await Self.queued(client, endpoint: endpoint.id) == [online, online2, offline])
            #expect(!(try await store.resend(event: "evt_unknown", endpoint: endpoint.id, account: Self.account, audit: Self.audit("ResendEvent"))))
            #expect(!(try await store.resend(event: online, endpoint: foreign.id, account: Self.account, audit: Self.audit("ResendEvent"))))

            let now = Int64(Date().timeIntervalSince1970 * 1000)
            let count = try await store.resend(
                createdFromUnixMs: now - 3_600_000, beforeUnixMs: now + 3_600_000, endpoint: endpoint.id, account: Self.account, limit: 100,
                audit: Self.audit("ResendEvents")
            )
            #expect(count == 2)
            #expect(try await Self.queued(client, endpoint: endpoint.id) == [online, online2, offline, online, online2])
            #expect(try await store.resend(
                createdFromUnixMs: 0, beforeUnixMs: now + 3_600_000, endpoint: foreign.id, account: Self.account, limit: 100, audit: Self.audit("ResendEvents")
            ) == nil)
            #expect(try await Self.auditActions(client) == ["CreateWebhookEndpoint", "ResendEvent", "ResendEvents"])
        }
    }
}
