import GatewayDomain
import GatewayPostgres
import GatewayRepositories
import GatewayTestSupport
import Testing

/// Ownership changes announced with NOTIFY, and the marker after the listener reconnects.
@Suite("Ownership notices")
struct OwnershipNoticeTests {
    @Test("payloads parse, and malformed ones are refused")
    func parsing() {
        let owned = OwnershipNotice(payload: "tmr_1 4 sess_A 2 node-a-ABC123")
        #expect(owned == OwnershipNotice(reader: ReaderID("tmr_1"), generation: OwnershipGeneration(4), session: SessionID("sess_A"), epoch: LinkEpoch(2), node: "node-a-ABC123"))
        let free = OwnershipNotice(payload: "tmr_1 5 - 3 -")
        #expect(free == OwnershipNotice(reader: ReaderID("tmr_1"), generation: OwnershipGeneration(5), session: nil, epoch: LinkEpoch(3), node: nil))
        #expect(free?.payload == "tmr_1 5 - 3 -")
        // A later release may append fields; this one reads the five it knows.
        #expect(OwnershipNotice(payload: "tmr_1 4 sess_A 2 node-a-ABC123 later fields") == owned)
        for bad in ["", "tmr_1 4 sess_A 2", "tmr_1 x sess_A 2 n", "tmr_1 4 sess_A y n", " 4 s 2 n", "tmr_1 4  2 n", "tmr_1  4 s 2 n"] {
            #expect(OwnershipNotice(payload: bad) == nil, "\(bad.debugDescription)")
        }
    }

    @Test("the trigger announces attach, claim, detach and loss on the channel; other updates stay quiet")
    func triggerNotifies() async throws {
        try await withOwnershipDatabase { client in
            let fixtures = OwnershipFixtures(client: client)
            let (store, _) = try await fixtures.seedCluster(nodes: ["node-a"])
            let collector = NotificationCollector(try await client.listen(OwnershipNotice.channel))
            defer { collector.stop() }
            let reader = ReaderID("tmr_notice")
            let owner = ReaderOwner(session: SessionID("sess_N"), lane: LaneLabel("Till"))
            try await fixtures.registerReader(reader)
            try await fixtures.openSession(owner.session, lane: owner.lane)
            _ = try await store.readerAttached(reader, node: "node-a")
            _ = try await store.claim(reader, ConnectRequest(session: owner.session, lane: owner.lane))
            // A transaction command changes none of the announced columns: no notice.
            _ = try await store.commandStarted(.collectPaymentMethod, reader: reader, session: owner.session, generation: OwnershipGeneration(1))
            _ = try await store.readerDetached(reader, epoch: LinkEpoch(1))
            _ = try await store.readerAttached(reader, node: "node-a")
            _ = try await store.readerLost(reader, epoch: LinkEpoch(2))
            let expected = [
                "tmr_notice 0 - 1 node-a",
                "tmr_notice 1 sess_N 1 node-a",
                "tmr_notice 1 sess_N 1 -",
                "tmr_notice 1 sess_N 2 node-a",
                "tmr_notice 2 - 2 -",
            ]
            try await collector.wait { $0.count >= expected.count }
            // A NOTIFY sent after the last one, to be sure nothing else is still on its way.
            try await client.execute("SELECT pg_notify($1, 'end')", [PostgresValue(OwnershipNotice.channel)])
            try await collector.wait { $0.contains { $0.payload == "end" } }
            let received = collector.all.filter { $0.payload != "end" }
            #expect(received.map(\.payload) == expected)
            #expect(received.allSatisfy { $0.channel == OwnershipNotice.channel && !$0.isResubscription })
            #expect(received.compactMap { OwnershipNotice(payload: $0.payload) }.map(\.generation.rawValue) == [0, 1, 1, 1, 2])
        }
    }

    @Test("after the listener's backend is terminated, each subscriber gets one resubscription marker, then notices again")
    func resubscriptionMarker() async throws {
        try await TestPostgres.withDatabase { database in
            let first = NotificationCollector(try await database.client.listen(OwnershipNotice.channel))
            let second = NotificationCollector(try await database.client.listen(OwnershipNotice.channel))
            let unrelated = NotificationCollector(try await database.client.listen("unrelated"))
            defer { for collector in [first, second, unrelated] { collector.stop() } }
            let admin = try database.makeClient()
            try await admin.execute("SELECT pg_notify($1, 'before')", [PostgresValue(OwnershipNotice.channel)])
            #expect(try await first.wait { $0.contains { $0.payload == "before" } })
            #expect(first.all.allSatisfy { !$0.isResubscription }, "no marker without a break")

            let killed = try await admin.query(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE 'LISTEN%' AND datname = current_database()"
            )
            #expect(killed.count == 1)
            for collector in [first, second, unrelated] {
                #expect(try await collector.wait(timeout: .seconds(20)) { $0.contains(where: \.isResubscription) })
            }
            // Once the marker arrived the channel is LISTENed again: the next NOTIFY is delivered.
            try await admin.execute("SELECT pg_notify($1, 'after')", [PostgresValue(OwnershipNotice.channel)])
            #expect(try await second.wait { $0.contains { $0.payload == "after" } })
            try await admin.execute("SELECT pg_notify('unrelated', 'end')")
            #expect(try await unrelated.wait { $0.contains { $0.payload == "end" } })
            for collector in [first, second, unrelated] {
                let markers = collector.all.filter(\.isResubscription)
                #expect(markers.count == 1)
                #expect(markers.allSatisfy { $0.payload.isEmpty && OwnershipNotice(payload: $0.payload) == nil })
            }
            #expect(first.all.first { $0.isResubscription }?.channel == OwnershipNotice.channel)
            #expect(unrelated.all.first { $0.isResubscription }?.channel == "unrelated")
            await admin.shutdown()
        }
    }
}
