import GatewayDomain
import GatewayPostgres
@testable import GatewayRepositories
import GatewayTestKit
import GatewayTestSupport
import Testing

/// What a batch of claims writes beside the ownership rows (migrations 26, 27 and 28): one event
/// per reader taken, in the order of the history rows, none for a refused connect, with ids made
/// of the batch's time, one random draw and the event's place; one webhook delivery per (event,
/// endpoint that wants it); a notice only where another replica must hear, sent by the batch's
/// own statement rather than the notice trigger.
@Suite("Ownership store: what a claim batch writes")
struct ClaimBatchWritesTests {
    /// Runs `OwnershipStatements.claimBatch` for `claims` (reader, session, failIfInUse), all
    /// from the latest discovery, reading the readers' rows for the fixtures' account.
    static func claimBatch(_ client: PostgresClient, _ claims: [(String, String, Bool)]) async throws -> [String] {
        let parameters: [PostgresValue?] = [
            PostgresValue(text: OwnershipClaimBatcher.arrayLiteral(claims.map(\.0))),
            PostgresValue(text: OwnershipClaimBatcher.arrayLiteral(claims.map(\.1))),
            PostgresValue(text: OwnershipClaimBatcher.arrayLiteral(claims.map { "lane-" + $0.1 })),
            PostgresValue(text: "{" + claims.map { $0.2 ? "true" : "false" }.joined(separator: ",") + "}"),
            PostgresValue(text: "{" + claims.map { _ in "1" }.joined(separator: ",") + "}"),
            PostgresValue(text: "{" + claims.map { _ in "1" }.joined(separator: ",") + "}"),
            PostgresValue(text: OwnershipClaimBatcher.arrayLiteral(claims.map { _ in OwnershipFixtures.account })),
        ]
        return try await client.query(OwnershipStatements.claimBatch, parameters).map { try $0.decode(String.self, "outcome") }
    }

    /// Three readers attached at node-a: tmr_b1 owned by sess_a, tmr_b2 owned by sess_a in a
    /// transaction command, tmr_b3 free; sessions sess_a, sess_b, sess_c.
    static func seedThreeReaders(_ client: PostgresClient) async throws -> OwnershipStore {
        let fixtures = OwnershipFixtures(client: client)
        let (store, _) = try await fixtures.seedCluster(nodes: ["node-a"])
        for session in ["sess_a", "sess_b", "sess_c"] {
            try await fixtures.openSession(SessionID(session), lane: LaneLabel("lane-" + session))
        }
        for reader in ["tmr_b1", "tmr_b2", "tmr_b3"] {
            try await fixtures.registerReader(ReaderID(reader))
            _ = try await store.readerAttached(ReaderID(reader), node: "node-a")
        }
        let a = ConnectRequest(session: SessionID("sess_a"), lane: LaneLabel("lane-sess_a"))
        _ = try await store.claim(ReaderID("tmr_b1"), a)
        _ = try await store.claim(ReaderID("tmr_b2"), a)
        let started = try await store.commandStarted(.collectPaymentMethod, reader: ReaderID("tmr_b2"), session: a.session, generation: OwnershipGeneration(1))
        #expect(started == .proceed)
        return store
    }

    static func lastEventSeq(_ client: PostgresClient) async throws -> Int {
        try await client.query("SELECT coalesce(max(seq), 0)::bigint AS seq FROM events").first?.decode(Int.self, "seq") ?? 0
    }

    @Test("a batch writes one event per reader it took, in the order of its history rows, and none for the refused connect")
    func eventsFollowTheHistory() async throws {
        try await withOwnershipDatabase { client in
            _ = try await Self.seedThreeReaders(client)
            let before = try await Self.lastEventSeq(client)
            let historyBefore = try await client.query("SELECT coalesce(max(id), 0)::bigint AS id FROM ownership_history").first?.decode(Int.self, "id") ?? 0
            let outcomes = try await Self.claimBatch(client, [("tmr_b3", "sess_c", false), ("tmr_b2", "sess_b", true), ("tmr_b1", "sess_b", false)])
            #expect(outcomes == ["connected", "refused_busy", "replaced"])

            let history = try await client.query(
                "SELECT reader_id, generation, reason::text AS reason FROM ownership_history WHERE id > $1 ORDER BY id",
                [PostgresValue(historyBefore)]
            ).map { (try $0.decode(String.self, "reader_id"), try $0.decode(Int.self, "generation"), try $0.decode(String.self, "reason")) }
            // The refused connect is in the history, not in the events.
            #expect(history.map { "\($0.0) \($0.2)" }.sorted() == ["tmr_b1 replaced", "tmr_b2 refused_busy", "tmr_b3 connected"])
            let changes = history.filter { $0.2 != "refused_busy" }
            let events = try await client.query(
                """
                SELECT type, reader_id, location_id, (object->>'generation')::bigint AS generation, object->>'reason' AS reason,
                       object->'owner'->>'session_id' AS owner, object->'owner'->>'pos_device_id' AS pos_device,
                       object->'previous_owner'->>'session_id' AS previous, object->'reader'->>'serial_number' AS serial
                FROM events WHERE seq > $1 ORDER BY seq
                """,
                [PostgresValue(before)]
            )
            // One event per change, in the history's order, each saying what its row says.
            #expect(try events.map { try $0.decode(String.self, "reader_id") } == changes.map(\.0))
            #expect(try events.map { try $0.decode(Int.self, "generation") } == changes.map(\.1))
            #expect(try events.map { try $0.decode(String.self, "reason") } == changes.map(\.2))
            #expect(try events.map { try $0.decode(String.self, "type") } == changes.map { "reader.ownership." + $0.2 })
            let expected: [String: (owner: String, previous: String?)] = ["tmr_b1": ("sess_b", "sess_a"), "tmr_b3": ("sess_c", nil)]
            for event in events {
                let reader = try event.decode(String.self, "reader_id")
                #expect(try event.decode(String.self, "owner") == expected[reader]?.owner)
                #expect(try event.decode(String.self, "pos_device") == "pos-" + (expected[reader]?.owner ?? "?"))
                #expect(try event.decode(String?.self, "previous") == expected[reader]?.previous)
                #expect(try event.decode(String.self, "serial") == "SN-" + reader)
            }
            #expect(try events.allSatisfy { try $0.decode(String.self, "location_id") == OwnershipFixtures.location })
        }
    }

    @Test("a batch's events each get one delivery per enabled endpoint of their account that wants them, in event order")
    func deliveriesFollowTheEvents() async throws {
        try await withOwnershipDatabase { client in
            _ = try await Self.seedThreeReaders(client)
            try await client.execute(
                """
                INSERT INTO webhook_endpoints (id, account_id, url, enabled_events, secret, status, created) VALUES
                    ('we_all', $1, 'https://hooks.example/all', '{*}', 'whsec_all', 'enabled', now() - interval '3 minutes'),
                    ('we_connected', $1, 'https://hooks.example/connected', '{reader.ownership.connected}', 'whsec_c', 'enabled', now() - interval '2 minutes'),
                    ('we_off', $1, 'https://hooks.example/off', '{*}', 'whsec_off', 'disabled', now() - interval '1 minute'),
                    ('we_other', 'acct_other', 'https://hooks.example/other', '{*}', 'whsec_o', 'enabled', now())
                """,
                [PostgresValue(OwnershipFixtures.account)]
            )
            let before = try await Self.lastEventSeq(client)
            let outcomes = try await Self.claimBatch(client, [("tmr_b1", "sess_b", false), ("tmr_b3", "sess_c", false)])
            #expect(outcomes == ["replaced", "connected"])
            let deliveries = try await client.query(
                """
                SELECT d.endpoint_id, e.type, d.event_seq, d.event_id = e.id AS same_event, d.reader_id, d.state
                FROM webhook_deliveries d JOIN events e ON e.seq = d.event_seq WHERE d.event_seq > $1 ORDER BY d.id
                """,
                [PostgresValue(before)]
            )
            let written = try deliveries.map { "\(try $0.decode(String.self, "endpoint_id")) \(try $0.decode(String.self, "type")) \(try $0.decode(String.self, "reader_id"))" }
            #expect(written == [
                "we_all reader.ownership.replaced tmr_b1",
                "we_all reader.ownership.connected tmr_b3",
                "we_connected reader.ownership.connected tmr_b3",
            ])
            let sequence = try deliveries.map { try $0.decode(Int.self, "event_seq") }
            #expect(sequence == sequence.sorted())
            #expect(try deliveries.allSatisfy { try $0.decode(Bool.self, "same_event") && $0.decode(String.self, "state") == "pending" })
        }
    }

    @Test("a claim is announced only when the new or the previous owner's replica does not hold the reader's link")
    func noticesOnlyAcrossReplicas() async throws {
        try await withOwnershipDatabase { client in
            let fixtures = OwnershipFixtures(client: client)
            let (store, _) = try await fixtures.seedCluster(nodes: ["node-a", "node-b"])
            let collector = NotificationCollector(try await client.listen(OwnershipNotice.channel))
            defer { collector.stop() }
            for (session, node) in [("sess_a1", "node-a"), ("sess_a2", "node-a"), ("sess_b", "node-b")] {
                try await fixtures.openSession(SessionID(session), lane: LaneLabel(session))
                try await client.execute("UPDATE sdk_sessions SET node_id = $2 WHERE id = $1", [PostgresValue(session), PostgresValue(node)])
            }
            let reader = ReaderID("tmr_local")
            try await fixtures.registerReader(reader)
            _ = try await store.readerAttached(reader, node: "node-a")
            func claim(_ session: String) async throws {
                let outcomes = try await Self.claimBatch(client, [(reader.rawValue, session, false)])
                #expect(outcomes == ["connected"] || outcomes == ["replaced"])
            }
            try await claim("sess_a1")  // generation 1: the link's replica, nobody before: silent
            try await claim("sess_a2")  // 2: both owners at the link's replica: silent
            try await claim("sess_b")  // 3: the new owner elsewhere: announced
            try await claim("sess_a1")  // 4: the previous owner elsewhere: announced
            try await claim("sess_a2")  // 5: silent again
            try await client.execute("SELECT pg_notify($1, 'end')", [PostgresValue(OwnershipNotice.channel)])
            #expect(try await collector.wait { $0.contains { $0.payload == "end" } })
            #expect(collector.all.map(\.payload) == [
                "tmr_local 0 - 1 node-a", "tmr_local 3 sess_b 1 node-a", "tmr_local 4 sess_a1 1 node-a", "end",
            ])
        }
    }

    /// Sessions sess_a1 and sess_a2 at node-a, sess_b at node-b; readers tmr_x1…3 attached at
    /// node-a, tmr_x2 owned by sess_a1 and tmr_x3 by sess_b.
    static func seedTwoReplicas(_ client: PostgresClient) async throws -> OwnershipStore {
        let fixtures = OwnershipFixtures(client: client)
        let (store, _) = try await fixtures.seedCluster(nodes: ["node-a", "node-b"])
        for (session, node) in [("sess_a1", "node-a"), ("sess_a2", "node-a"), ("sess_b", "node-b")] {
            try await fixtures.openSession(SessionID(session), lane: LaneLabel("lane-" + session))
            try await client.execute("UPDATE sdk_sessions SET node_id = $2 WHERE id = $1", [PostgresValue(session), PostgresValue(node)])
        }
        for reader in ["tmr_x1", "tmr_x2", "tmr_x3"] {
            try await fixtures.registerReader(ReaderID(reader))
            _ = try await store.readerAttached(ReaderID(reader), node: "node-a")
        }
        #expect(try await claimBatch(client, [("tmr_x2", "sess_a1", false), ("tmr_x3", "sess_b", false)]) == ["connected", "connected"])
        return store
    }

    /// Calls of `reader_ownership_notify` in the transaction so far (`track_functions` on for it).
    static func noticeTriggerCalls(_ transaction: PostgresTransaction) async throws -> Int {
        try await transaction.query(
            "SELECT coalesce(sum(calls), 0)::bigint AS calls FROM pg_stat_xact_user_functions WHERE funcname = 'reader_ownership_notify'"
        ).first?.decode(Int.self, "calls") ?? 0
    }

    @Test("in a batch of several claims, only those another replica must hear are announced, by the batch's statement, not the trigger")
    func mixedBatchAnnouncesOnlyAcrossReplicas() async throws {
        try await withOwnershipDatabase { client in
            _ = try await Self.seedTwoReplicas(client)
            let collector = NotificationCollector(try await client.listen(OwnershipNotice.channel))
            defer { collector.stop() }
            let calls = try await client.withTransaction { transaction in
                try await transaction.execute("SET LOCAL track_functions = 'pl'")
                let rows = try await transaction.query(
                    OwnershipStatements.claimBatch,
                    [
                        PostgresValue(text: "{tmr_x1,tmr_x2,tmr_x3}"), PostgresValue(text: "{sess_a2,sess_b,sess_a1}"),
                        PostgresValue(text: "{lane-sess_a2,lane-sess_b,lane-sess_a1}"), PostgresValue(text: "{false,false,false}"),
                        PostgresValue(text: "{1,1,1}"), PostgresValue(text: "{1,1,1}"),
                        PostgresValue(text: OwnershipClaimBatcher.arrayLiteral(Array(repeating: OwnershipFixtures.account, count: 3))),
                    ]
                )
                #expect(try rows.map { try $0.decode(String.self, "outcome") } == ["connected", "replaced", "replaced"])
                return try await Self.noticeTriggerCalls(transaction)
            }
            #expect(calls == 0, "the trigger ran \(calls) times for the batch's claims")
            try await client.execute("SELECT pg_notify($1, 'end')", [PostgresValue(OwnershipNotice.channel)])
            #expect(try await collector.wait { $0.contains { $0.payload == "end" } })
            // tmr_x1: free, claimed at its link's replica: silent. tmr_x2: the new owner at
            // node-b. tmr_x3: the previous owner at node-b.
            #expect(collector.all.map(\.payload).sorted() == ["end", "tmr_x2 2 sess_b 1 node-a", "tmr_x3 2 sess_a1 1 node-a"])
        }
    }

    @Test("after a claim batch, later writes of the same transaction are announced by the trigger again")
    func triggerAnnouncesAfterTheBatchInOneTransaction() async throws {
        try await withOwnershipDatabase { client in
            _ = try await Self.seedTwoReplicas(client)
            let collector = NotificationCollector(try await client.listen(OwnershipNotice.channel))
            defer { collector.stop() }
            let (setting, calls) = try await client.withTransaction { transaction in
                try await transaction.execute("SET LOCAL track_functions = 'pl'")
                let rows = try await transaction.query(
                    OwnershipStatements.claimBatch,
                    [
                        PostgresValue(text: "{tmr_x1}"), PostgresValue(text: "{sess_a1}"), PostgresValue(text: "{lane-sess_a1}"),
                        PostgresValue(text: "{false}"), PostgresValue(text: "{1}"), PostgresValue(text: "{1}"),
                        PostgresValue(text: OwnershipClaimBatcher.arrayLiteral([OwnershipFixtures.account])),
                    ]
                )
                #expect(try rows.map { try $0.decode(String.self, "outcome") } == ["connected"])
                let setting = try await transaction.query(
                    "SELECT coalesce(current_setting('reader_gateway.claim_set_notices', true), '') AS setting"
                ).first?.decode(String.self, "setting")
                // The single claim (0.1.0's and the bare claim's function): the new owner is at
                // node-b, so the trigger announces it.
                let single = try await transaction.query(
                    "SELECT outcome FROM ownership_claim('tmr_x2', 'sess_b', 'lane-sess_b', false, 1, 1)"
                )
                #expect(try single.map { try $0.decode(String.self, "outcome") } == ["replaced"])
                return (setting, try await Self.noticeTriggerCalls(transaction))
            }
            #expect(setting != "sent")
            #expect(calls == 1)
            try await client.execute("SELECT pg_notify($1, 'end')", [PostgresValue(OwnershipNotice.channel)])
            #expect(try await collector.wait { $0.contains { $0.payload == "end" } })
            #expect(collector.all.map(\.payload) == ["tmr_x2 2 sess_b 1 node-a", "end"])
        }
    }

    /// PostgreSQL's clock in milliseconds, the time event ids are made of.
    static func serverMilliseconds(_ client: PostgresClient) async throws -> Int64 {
        try await client.query("SELECT floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint AS ms").first?.decode(Int64.self, "ms") ?? 0
    }

    /// The ids of the events after `seq`, in the log's order.
    static func eventIDs(_ client: PostgresClient, after seq: Int) async throws -> [String] {
        try await client.query("SELECT id FROM events WHERE seq > $1 ORDER BY seq", [PostgresValue(seq)]).map { try $0.decode(String.self, "id") }
    }

    @Test("a batch's events share its time and random draw, are numbered in history order, and a later batch's ids are greater")
    func eventIDsGrowWithTheBatches() async throws {
        try await withOwnershipDatabase { client in
            _ = try await Self.seedThreeReaders(client)
            let start = try await Self.lastEventSeq(client)
            let startedMs = try await Self.serverMilliseconds(client)
            // The refused connect in the middle writes no event and takes no place.
            let first = try await Self.claimBatch(client, [("tmr_b3", "sess_c", false), ("tmr_b2", "sess_b", true), ("tmr_b1", "sess_b", false)])
            #expect(first == ["connected", "refused_busy", "replaced"])
            let firstIDs = try await Self.eventIDs(client, after: start)
            let endedMs = try await Self.serverMilliseconds(client)
            // `evt_`, then the statement's milliseconds (12 hex digits), its draw (16), the place (4).
            #expect(firstIDs.count == 2)
            let firstParts = firstIDs.compactMap(EventIdTests.parts)
            #expect(firstParts.count == firstIDs.count, "ids not of the form evt_ and 32 lowercase hex digits: \(firstIDs)")
            #expect(Set(firstParts.map { "\($0.ms) \($0.draw)" }).count == 1, "one batch, several prefixes: \(firstIDs)")
            #expect(firstParts.map(\.place) == [1, 2])
            let firstMs = try #require(firstParts.first?.ms)
            try #require(firstMs >= startedMs && firstMs <= endedMs, "the batch's time \(firstMs) is outside \(startedMs)…\(endedMs)")

            // The next batch in a later millisecond (the server's clock, waited for).
            #expect(try await eventually { try await Self.serverMilliseconds(client) > firstMs })
            let middle = try await Self.lastEventSeq(client)
            let second = try await Self.claimBatch(client, [("tmr_b1", "sess_a", false), ("tmr_b3", "sess_b", false)])
            #expect(second == ["replaced", "replaced"])
            let secondIDs = try await Self.eventIDs(client, after: middle)
            #expect(secondIDs.count == 2)
            let secondParts = secondIDs.compactMap(EventIdTests.parts)
            #expect(secondParts.count == secondIDs.count, "\(secondIDs)")
            #expect(secondParts.map(\.place) == [1, 2])
            #expect(Set(secondParts.map { "\($0.ms) \($0.draw)" }).count == 1)
            #expect(secondParts.first.map { "\($0.ms) \($0.draw)" } != firstParts.first.map { "\($0.ms) \($0.draw)" })
            let ids = firstIDs + secondIDs
            #expect(ids == ids.sorted(), "ids out of the log's order: \(ids)")
        }
    }
}
