import GatewayDomain
import GatewayPostgres
@testable import GatewayRepositories
import Testing

/// The fleet-admin queries: answers, and plans that use indexes.
@Suite("Ownership store: admin queries")
struct OwnershipStoreQueryTests {
    @Test("owner, location, account, history and sessions")
    func answers() async throws {
        try await withOwnershipDatabase { client in
            let fixtures = OwnershipFixtures(client: client)
            try await fixtures.seedAccount()
            let store = OwnershipStore(client: client)
            let a = ReaderOwner(session: SessionID("sess_a"), lane: LaneLabel("Till 1"))
            let b = ReaderOwner(session: SessionID("sess_b"), lane: LaneLabel("Till 2"))
            try await fixtures.openSession(a.session, lane: a.lane)
            try await fixtures.openSession(b.session, lane: b.lane)
            let readers = (1...3).map { ReaderID("tmr_q\($0)") }
            for reader in readers {
                try await fixtures.registerReader(reader)
                _ = try await store.readerAttached(reader)
            }
            _ = try await store.claim(readers[0], ConnectRequest(session: a.session, lane: a.lane))
            _ = try await store.claim(readers[1], ConnectRequest(session: a.session, lane: a.lane))
            _ = try await store.claim(readers[1], ConnectRequest(session: b.session, lane: b.lane))
            _ = try await store.adminRelease(reader: readers[1])

            #expect(try await store.ownership(of: readers[0])?.owner == a)
            #expect(try await store.ownership(of: ReaderID("tmr_none")) == nil)
            let atLocation = try await store.ownership(atLocation: OwnershipFixtures.location)
            #expect(atLocation.map(\.reader) == readers)
            #expect(atLocation.map(\.owner) == [a, nil, nil])
            #expect(try await store.ownership(inAccount: OwnershipFixtures.account).map(\.reader) == readers)

            let history = try await store.history(of: readers[1])
            #expect(history.map(\.reason) == [.adminReleased, .replaced, .connected])
            #expect(history.map(\.generation.rawValue) == [3, 2, 1])
            #expect(history[1].from == a && history[1].to == b)
            let older = try await store.history(of: readers[1], before: history[0].id, limit: 1)
            #expect(older.map(\.reason) == [.replaced])

            let sessions = try await store.sessions(ofAccount: OwnershipFixtures.account)
            #expect(sessions.map(\.session) == [a.session, b.session])
            #expect(sessions.map(\.readers) == [[readers[0]], []])
        }
    }

    @Test("every admin query is an index scan")
    func plans() async throws {
        try await withOwnershipDatabase { client in
            let statements: [(String, [PostgresValue?])] = [
                (OwnershipQueries.ownerOfReader, [PostgresValue("tmr_1")]),
                (OwnershipQueries.ownershipAtLocation, [PostgresValue("loc")]),
                (OwnershipQueries.ownershipInAccount, [PostgresValue("acct")]),
                (OwnershipQueries.historyOfReader, [PostgresValue("tmr_1"), nil, PostgresValue(50)]),
                (OwnershipQueries.sessionsOfAccount, [PostgresValue("acct")]),
            ]
            for (sql, parameters) in statements {
                let plan = try await client.withTransaction { transaction in
                    // Small tables favour sequential scans; forbid them to see whether an index serves the query.
                    try await transaction.execute("SET LOCAL enable_seqscan = off")
                    let rows = try await transaction.query("EXPLAIN " + sql, parameters)
                    return try rows.map { try $0.decode(String.self, at: 0) }.joined(separator: "\n")
                }
                #expect(!plan.contains("Seq Scan"), "\(sql)\n\(plan)")
                #expect(plan.contains("Index"), "\(sql)\n\(plan)")
            }
        }
    }
}
