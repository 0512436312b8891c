import Foundation
import GatewayTestKit
import Synchronization
import GatewayCore
import GatewayDomain
import GatewayPostgres
import GatewayRepositories
import Testing

/// The event log (migration 21): each change writes its event in its own transaction, by
/// whichever statement makes it; a rolled-back change leaves none; pages stay put while
/// events are written; one account never sees another's.
@Suite("Event log")
struct EventLogTests {
    static let a = ReaderOwner(session: SessionID("sess_a"), lane: LaneLabel("Till 1"))
    static let b = ReaderOwner(session: SessionID("sess_b"), lane: LaneLabel("Till 2"))

    /// The account's events, oldest first, as (type, reader) pairs.
    static func written(_ client: PostgresClient, account: String = OwnershipFixtures.account) async throws -> [EventRecord] {
        try await EventStore(client: client).events(account: account, filter: EventFilter(), beforeSeq: nil, limit: 1000).reversed()
    }

    static func object(_ record: EventRecord) throws -> [String: Any] {
        let parsed = try JSONSerialization.jsonObject(with: Data(record.objectJSON.utf8))
        return try #require(parsed as? [String: Any])
    }

    @Test("registration, links, every kind of ownership change and deletion each write their event, with the object after the change")
    func everyChangeWritesItsEvent() async throws {
        try await withOwnershipDatabase { client in
            let fixtures = OwnershipFixtures(client: client)
            let (store, _) = try await fixtures.seedCluster(nodes: ["node-a"])
            try await fixtures.openSession(Self.a.session, lane: Self.a.lane)
            try await fixtures.openSession(Self.b.session, lane: Self.b.lane)
            let reader = ReaderID("tmr_ev1")
            try await fixtures.registerReader(reader)
            _ = try await store.readerAttached(reader, node: "node-a")
            _ = try await store.claim(reader, ConnectRequest(session: Self.a.session, lane: Self.a.lane))
            // A refused connect changes nothing: no event.
            _ = try await store.commandStarted(.collectPaymentMethod, reader: reader, session: Self.a.session, generation: OwnershipGeneration(1))
            _ = try await store.claim(reader, ConnectRequest(session: Self.b.session, lane: Self.b.lane, failIfInUse: true))
            _ = try await store.claim(reader, ConnectRequest(session: Self.b.session, lane: Self.b.lane))
            _ = try await store.adminRelease(reader: reader)
            _ = try await store.claim(reader, ConnectRequest(session: Self.a.session, lane: Self.a.lane))
            // A re-attach of an online reader changes no status: no event.
            _ = try await store.readerAttached(reader, node: "node-a")
            _ = try await store.readerLost(reader, epoch: LinkEpoch(2))
            #expect(try await ReaderStore(client: client).deleteReader(reader.rawValue, account: OwnershipFixtures.account))

            let events = try await Self.written(client)
            #expect(events.map(\.type) == [
                "reader.registered", "reader.online", "reader.ownership.connected", "reader.ownership.replaced",
                "reader.ownership.released", "reader.ownership.connected", "reader.offline", "reader.ownership.lost",
                "reader.deleted",
            ] || events.map(\.type) == [
                "reader.registered", "reader.online", "reader.ownership.connected", "reader.ownership.replaced",
                "reader.ownership.released", "reader.ownership.connected", "reader.ownership.lost", "reader.offline",
                "reader.deleted",
            ], "\(events.map(\.type))")
            #expect(events.allSatisfy { $0.readerID == reader.rawValue && $0.locationID == OwnershipFixtures.location })
            #expect(events.allSatisfy { $0.id.hasPrefix("evt_") && $0.id.count == 36 })
            #expect(Set(events.map(\.id)).count == events.count)

            // The replace names both sessions and the reader as it stood after the change.
            let replaced = try #require(events.first { $0.type == "reader.ownership.replaced" })
            let change = try Self.object(replaced)
            #expect(change["object"] as? String == "reader_ownership_change")
            #expect((change["owner"] as? [String: Any])?["session_id"] as? String == "sess_b")
            #expect((change["owner"] as? [String: Any])?["pos_device_id"] as? String == "pos-sess_b")
            #expect((change["previous_owner"] as? [String: Any])?["session_id"] as? String == "sess_a")
            #expect((change["owner"] as? [String: Any])?["lane_label"] as? String == "Till 2")
            #expect(change["generation"] as? Int == 2)
            let after = try #require(change["reader"] as? [String: Any])
            #expect(after["status"] as? String == "online" && after["id"] as? String == reader.rawValue)
            // A status event carries the reader's ownership as it stands: after the loss, none.
            let online = try Self.object(try #require(events.first { $0.type == "reader.online" }))
            #expect((online["ownership"] as? [String: Any])?["generation"] as? Int == 0)
            // The offline event shows the reader offline, without an owner; the deletion says so.
            let offline = try Self.object(try #require(events.first { $0.type == "reader.offline" }))
            #expect(offline["status"] as? String == "offline")
            #expect((offline["ownership"] as? [String: Any])?["owner"] is NSNull)
            let deleted = try Self.object(try #require(events.last))
            #expect(deleted["deleted"] as? Bool == true)
            // No secret leaves with an event.
            #expect(!events.contains { $0.objectJSON.contains("credential") })
        }
    }

    @Test("a lease that ran out releases with an event")
    func expiryWritesReleased() async throws {
        try await withOwnershipDatabase { client in
            let fixtures = OwnershipFixtures(client: client)
            let (store, _) = try await fixtures.seedCluster(nodes: ["node-a"])
            try await fixtures.openSession(Self.a.session, lane: Self.a.lane)
            let reader = ReaderID("tmr_ev2")
            try await fixtures.registerReader(reader)
            _ = try await store.readerAttached(reader, node: "node-a")
            _ = try await store.claim(reader, ConnectRequest(session: Self.a.session, lane: Self.a.lane))
            try await fixtures.expireLease(Self.a.session)
            #expect(try await store.expireSessions().count == 1)
            let last = try #require(try await Self.written(client).last)
            #expect(last.type == "reader.ownership.released")
            #expect(try Self.object(last)["reason"] as? String == "session_expired")
        }
    }

    @Test("a change rolled back leaves no event, and an event rolled back leaves no change")
    func changeAndEventAreAtomic() async throws {
        try await withOwnershipDatabase { client in
            let fixtures = OwnershipFixtures(client: client)
            let (store, _) = try await fixtures.seedCluster(nodes: ["node-a"])
            try await fixtures.openSession(Self.a.session, lane: Self.a.lane)
            let reader = ReaderID("tmr_ev3")
            try await fixtures.registerReader(reader)
            _ = try await store.readerAttached(reader, node: "node-a")
            let before = try await Self.written(client)
            struct Abandon: Error {}
            // A registration and a claim in a transaction that rolls back.
            await #expect(throws: Abandon.self) {
                try await client.withTransaction { transaction in
                    try await transaction.execute(
                        "INSERT INTO readers (id, account_id, serial_number, device_type, location_id) VALUES ('tmr_gone', $1, 'SN-gone', 'bbpos_wisepos_e', $2)",
                        [PostgresValue(OwnershipFixtures.account), PostgresValue(OwnershipFixtures.location)]
                    )
                    let claimed = try await transaction.query(
                        "SELECT outcome FROM ownership_claim($1, $2, $3, false, 0, 0)",
                        [PostgresValue(reader.rawValue), PostgresValue(Self.a.session.rawValue), PostgresValue(Self.a.lane.rawValue)]
                    )
                    #expect(try claimed.first?.decode(String.self, "outcome") == "connected")
                    // Inside the transaction the events are there...
                    let inside = try await transaction.query("SELECT type FROM events ORDER BY seq")
                    #expect(try inside.map { try $0.decode(String.self, "type") }.suffix(2) == ["reader.registered", "reader.ownership.connected"])
                    throw Abandon()
                }
            }
            // ...and after the rollback neither they nor the changes are.
            #expect(try await Self.written(client) == before)
            #expect(try await ReaderStore(client: client).reader("tmr_gone", account: OwnershipFixtures.account) == nil)
            #expect(try await store.ownership(of: reader)?.owner == nil)
            // An event the gateway writes beside a change goes with it too.
            await #expect(throws: Abandon.self) {
                try await client.withTransaction { transaction in
                    let id = try await EventStore(client: client).appendReaderEvent(
                        EventType.softwareUpdateInstalled, reader: reader.rawValue, account: OwnershipFixtures.account,
                        details: ["object": "reader_software_update", "version": "2.0.0"], in: transaction
                    )
                    #expect(id != nil)
                    throw Abandon()
                }
            }
            #expect(try await Self.written(client) == before)
        }
    }

    @Test("pages run newest first, and events written between pages never shift or repeat the later pages")
    func pagingIsStableAcrossInserts() async throws {
        try await withOwnershipDatabase { client in
            let fixtures = OwnershipFixtures(client: client)
            try await fixtures.seedAccount()
            let events = EventStore(client: client)
            for index in 1...7 { try await fixtures.registerReader(ReaderID("tmr_p\(index)")) }
            let all = try await events.events(account: OwnershipFixtures.account, filter: EventFilter(), beforeSeq: nil, limit: 100)
            #expect(all.map(\.readerID) == (1...7).reversed().map { "tmr_p\($0)" })
            #expect(all.map(\.seq) == all.map(\.seq).sorted(by: >))

            var seen: [EventRecord] = []
            var cursor: String? = nil
            var inserted = 0
            repeat {
                let page = try await events.events(
                    account: OwnershipFixtures.account, filter: EventFilter(), beforeSeq: cursor.flatMap(PageCursor.events.seq), limit: 3
                )
                seen += page
                cursor = page.count == 3 ? PageCursor.events.token(after: page[2].seq) : nil
                // New events arrive while the caller pages.
                inserted += 1
                try await fixtures.registerReader(ReaderID("tmr_new\(inserted)"))
            } while cursor != nil
            #expect(seen == all)
            #expect(inserted == 3)
            // Filters: type, reader, location, created range.
            let online = try await events.events(
                account: OwnershipFixtures.account, filter: EventFilter(types: ["reader.online"]), beforeSeq: nil, limit: 100
            )
            #expect(online.isEmpty)
            let one = try await events.events(account: OwnershipFixtures.account, filter: EventFilter(readerID: "tmr_p3"), beforeSeq: nil, limit: 100)
            #expect(one.map(\.readerID) == ["tmr_p3"])
            let elsewhere = try await events.events(
                account: OwnershipFixtures.account, filter: EventFilter(locationID: "loc_other"), beforeSeq: nil, limit: 100
            )
            #expect(elsewhere.isEmpty)
            let newest = try #require(all.first)
            let range = try await events.events(
                account: OwnershipFixtures.account,
                filter: EventFilter(createdFromUnixMs: newest.createdUnixMs, createdBeforeUnixMs: newest.createdUnixMs + 1),
                beforeSeq: nil, limit: 100
            )
            #expect(range.contains(newest))
            #expect(range.allSatisfy { $0.createdUnixMs == newest.createdUnixMs })
            let none = try await events.events(
                account: OwnershipFixtures.account, filter: EventFilter(createdBeforeUnixMs: all.last!.createdUnixMs), beforeSeq: nil, limit: 100
            )
            #expect(none.isEmpty)
        }
    }

    @Test("another account's events are never listed or found, and no event is written about another account's reader")
    func accountsAreIsolated() async throws {
        try await withOwnershipDatabase { client in
            let fixtures = OwnershipFixtures(client: client)
            try await fixtures.seedAccount()
            try await OwnershipSchemaFixtures.insertAccount(client, id: "acct_other", location: "loc_other")
            try await fixtures.registerReader(ReaderID("tmr_mine"))
            try await OwnershipSchemaFixtures.insertReader(client, id: "tmr_theirs", account: "acct_other", location: "loc_other")
            let events = EventStore(client: client)
            let mine = try await Self.written(client)
            let theirs = try await Self.written(client, account: "acct_other")
            #expect(mine.map(\.readerID) == ["tmr_mine"])
            #expect(theirs.map(\.readerID) == ["tmr_theirs"])
            #expect(try await events.event(theirs[0].id, account: OwnershipFixtures.account) == nil)
            #expect(try await events.event(theirs[0].id, account: "acct_other") == theirs[0])
            let written = try await events.appendReaderEvent(
                EventType.actionSucceeded, reader: "tmr_theirs", account: OwnershipFixtures.account, details: ["object": "reader_action"]
            )
            #expect(written == nil)
            #expect(try await Self.written(client) == mine)
        }
    }

    @Test("a Tap to Pay account refused by the accounts-per-device rule writes tap_to_pay.account_blocked to its account")
    func tapToPayBlockWritesAnEvent() async throws {
        try await withOwnershipDatabase { client in
            let fixtures = OwnershipFixtures(client: client)
            try await fixtures.seedAccount()
            try await OwnershipSchemaFixtures.insertAccount(client, id: "acct_other", location: "loc_other")
            let store = TapToPayStore(client: client, limit: 1)
            let now = Date(timeIntervalSince1970: 1_800_000_000)
            #expect(try await store.admit(device: "pos-phone", account: "acct_other", now: now) == .admitted(accounts: 1))
            let key = TapToPayStore.accountKey(account: OwnershipFixtures.account, onBehalfOf: "acct_connected")
            guard case .blocked = try await store.admit(device: "pos-phone", account: key, now: now) else {
                Issue.record("the second account was admitted")
                return
            }
            #expect(try await Self.written(client, account: "acct_other").isEmpty)
            let blocked = try #require(try await Self.written(client).last)
            #expect(blocked.type == "tap_to_pay.account_blocked")
            let object = try Self.object(blocked)
            #expect(object["pos_device_id"] as? String == "pos-phone")
            #expect(object["on_behalf_of"] as? String == "acct_connected")
            #expect(object["retry_unix_ms"] as? Int == 1_800_000_000_000 + 24 * 3600 * 1000)
        }
    }

    @Test("a page token round-trips, and anything else is refused")
    func cursorTokens() {
        #expect(PageCursor.events.seq(PageCursor.events.token(after: 42)) == 42)
        #expect(PageCursor.events.seq(PageCursor.events.token(after: Int64.max)) == Int64.max)
        #expect(PageCursor.events.seq("") == nil)
        #expect(PageCursor.events.seq("42") == nil)
        #expect(PageCursor.events.seq("not a token!") == nil)
        #expect(PageCursor.events.seq(PageCursor.events.token(after: 0)) == nil)
    }
}

/// Command outcomes written together: every queued event lands once, a reader of another
/// account is left out, and a full queue drops rather than grows.
@Suite("Event log: queued reader events")
struct ReaderEventBatcherTests {
    @Test("500 events queued at once are all written, each once, in the order queued, with time-ordered ids, and none about another account's reader")
    func everyQueuedEventIsWritten() async throws {
        try await withOwnershipDatabase { client in
            let fixtures = OwnershipFixtures(client: client)
            try await fixtures.seedAccount()
            try await OwnershipSchemaFixtures.insertAccount(client, id: "acct_other", location: "loc_other")
            try await fixtures.registerReader(ReaderID("tmr_q"))
            try await OwnershipSchemaFixtures.insertReader(client, id: "tmr_theirs", account: "acct_other", location: "loc_other")
            let failures = Mutex(0)
            let batcher = ReaderEventBatcher(client: client, failed: { _, count in failures.withLock { $0 += count } }, dropped: { _ in })
            let startedMs = Int64(Date().timeIntervalSince1970 * 1000)
            for index in 0..<500 {
                batcher.append(ReaderEventBatcher.Event(
                    type: EventType.actionSucceeded, reader: "tmr_q", account: OwnershipFixtures.account,
                    details: ["object": "reader_action", "action": "set_reader_display", "n": "\(index)"]
                ))
            }
            batcher.append(ReaderEventBatcher.Event(type: EventType.actionFailed, reader: "tmr_theirs", account: OwnershipFixtures.account, details: [:]))
            #expect(await eventually { batcher.outstanding == 0 })
            #expect(failures.withLock { $0 } == 0)
            let written = try await EventStore(client: client).events(
                account: OwnershipFixtures.account, filter: EventFilter(types: [EventType.actionSucceeded, EventType.actionFailed]), beforeSeq: nil, limit: 1000
            )
            #expect(written.count == 500)
            // Newest first; in the log's order they are in the order queued (one statement at a time).
            let queuedOrder = written.reversed().compactMap { Int($0.objectJSON.components(separatedBy: "\"n\": \"")[1].prefix { $0 != "\"" }) }
            #expect(queuedOrder == Array(0..<500), "the log's order differs from the order queued")
            #expect(written.allSatisfy { $0.readerID == "tmr_q" && $0.locationID == OwnershipFixtures.location && $0.objectJSON.contains("\"reader\": {") })
            // Ids: `evt_` and 32 hex digits, unique, starting with the time they were written in
            // milliseconds (12 hex digits), which never goes back in the log's order.
            let ids = written.reversed().map(\.id)
            #expect(Set(ids).count == ids.count)
            #expect(ids.allSatisfy { $0.hasPrefix("evt_") && $0.count == 36 && $0.dropFirst(4).allSatisfy(\.isHexDigit) }, "\(ids.prefix(3))")
            let idMs = ids.compactMap { Int64($0.dropFirst(4).prefix(12), radix: 16) }
            let endedMs = Int64(Date().timeIntervalSince1970 * 1000)
            #expect(idMs.count == ids.count && idMs == idMs.sorted(), "ids' times out of order: \(idMs.prefix(5))")
            #expect(idMs.allSatisfy { $0 >= startedMs - 1000 && $0 <= endedMs + 1000 }, "ids' times \(idMs.first ?? 0)… outside \(startedMs)…\(endedMs)")
            #expect(try await EventStore(client: client).events(account: "acct_other", filter: EventFilter(types: [EventType.actionFailed]), beforeSeq: nil, limit: 10).isEmpty)
        }
    }

    @Test("past its bound the queue drops events and says so, and writes the rest")
    func aFullQueueDrops() async throws {
        try await withOwnershipDatabase { client in
            let fixtures = OwnershipFixtures(client: client)
            try await fixtures.seedAccount()
            try await fixtures.registerReader(ReaderID("tmr_full"))
            let dropped = Mutex(0)
            // One statement at a time, held back by a lock on the reader's row, so the queue fills.
            let batcher = ReaderEventBatcher(client: client, maximumBatch: 1, maximumInFlight: 1, maximumPending: 3, failed: { _, _ in }, dropped: { _ in dropped.withLock { $0 += 1 } })
            let event = ReaderEventBatcher.Event(type: EventType.actionSucceeded, reader: "tmr_full", account: OwnershipFixtures.account, details: [:])
            try await client.withTransaction { transaction in
                try await transaction.execute("LOCK TABLE events IN EXCLUSIVE MODE")
                let accepted = (0..<10).map { _ in batcher.append(event) }
                #expect(accepted == Array(repeating: true, count: 3) + Array(repeating: false, count: 7))
                #expect(dropped.withLock { $0 } == 7)
            }
            #expect(await eventually { batcher.outstanding == 0 })
            let written = try await EventStore(client: client).events(
                account: OwnershipFixtures.account, filter: EventFilter(types: [EventType.actionSucceeded]), beforeSeq: nil, limit: 100
            )
            #expect(written.count == 3)
        }
    }
}
