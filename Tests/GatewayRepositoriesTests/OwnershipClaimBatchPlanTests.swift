import GatewayDomain
import GatewayPostgres
@testable import GatewayRepositories
import Testing

/// What a claim batch costs PostgreSQL must not grow with the fleet: the claimed readers' rows
/// are found by key, never by reading the whole `readers` table.
@Suite("Ownership store: claim batch plans")
struct OwnershipClaimBatchPlanTests {
    /// The statement's parameters for claims by `sess_a`, `sess_b` and `sess_c` on the first
    /// three fleet readers (`offset` picks another three).
    static func claimParameters(offset: Int = 0) -> [PostgresValue?] {
        let readers = (1...3).map { "tmr_fleet_\($0 + offset)" }
        return [
            PostgresValue(text: OwnershipClaimBatcher.arrayLiteral(readers)),
            PostgresValue(text: OwnershipClaimBatcher.arrayLiteral(["sess_a", "sess_b", "sess_c"])),
            PostgresValue(text: OwnershipClaimBatcher.arrayLiteral(["Till 1", "Till 2", "Till 3"])),
            PostgresValue(text: "{false,false,false}"),
            PostgresValue(text: "{1,1,1}"),
            PostgresValue(text: "{1,1,1}"),
            PostgresValue(text: OwnershipClaimBatcher.arrayLiteral(Array(repeating: OwnershipFixtures.account, count: 3))),
        ]
    }

    @Test("a claim batch looks each reader's row up by key, at 10,000 registered readers")
    func readerRowsAreLookedUpByKey() async throws {
        try await withOwnershipDatabase { client in
            try await OwnershipFixtures(client: client).seedAccount()
            try await Self.registerFleet(client)
            // EXPLAIN plans without running: nothing is claimed.
            let plan = try await client.query("EXPLAIN " + OwnershipStatements.claimBatch, Self.claimParameters())
                .map { try $0.decode(String.self, at: 0) }
            let text = plan.joined(separator: "\n")
            #expect(text.contains("Index Scan using readers_pkey"), "\(text)")
            #expect(!text.contains("Seq Scan on readers"), "\(text)")
        }
    }

    @Test("claim batches read, lock and write only their readers' rows, by key, at 10,000 attached readers")
    func claimsTouchOnlyTheirReaders() async throws {
        try await withOwnershipDatabase { client in
            let fixtures = OwnershipFixtures(client: client)
            try await fixtures.seedAccount()
            for (session, lane) in [("sess_a", "Till 1"), ("sess_b", "Till 2"), ("sess_c", "Till 3")] {
                try await fixtures.openSession(SessionID(session), lane: LaneLabel(lane))
            }
            try await Self.registerFleet(client)
            try await client.execute("INSERT INTO reader_ownership (reader_id, online) SELECT id, true FROM readers")
            try await client.execute("ANALYZE reader_ownership")
            // The function's own statement is not shown by EXPLAIN: its scans are counted
            // instead, in this backend's statistics not yet reported (which may still hold
            // earlier transactions' counts, hence the difference). Eight batches, beyond the
            // five runs after which a cached plan may turn generic.
            let (before, after) = try await client.withTransaction { transaction in
                let before = try await Self.scans(transaction)
                for batch in 0..<8 {
                    let rows = try await transaction.query(OwnershipStatements.claimBatch, Self.claimParameters(offset: 3 * batch))
                    let outcomes = try rows.map { try $0.decode(String.self, "outcome") }
                    #expect(outcomes == ["connected", "connected", "connected"])
                }
                return (before, try await Self.scans(transaction))
            }
            // The history rows read their sessions' POS devices by key as well.
            for table in ["readers", "reader_ownership", "sdk_sessions"] {
                let sequential = after[table, default: (0, 0)].sequential - before[table, default: (0, 0)].sequential
                let byIndex = after[table, default: (0, 0)].byIndex - before[table, default: (0, 0)].byIndex
                #expect(sequential == 0, "\(table): \(sequential) sequential scans")
                #expect(byIndex > 0, "\(table): no index scan")
            }
        }
    }

    /// Sequential and index scans of the claim's tables counted in this backend so far.
    static func scans(_ transaction: PostgresTransaction) async throws -> [String: (sequential: Int, byIndex: Int)] {
        let rows = try await transaction.query(
            "SELECT relname, seq_scan, idx_scan FROM pg_stat_xact_user_tables WHERE relname IN ('readers', 'reader_ownership', 'sdk_sessions')"
        )
        var scans: [String: (sequential: Int, byIndex: Int)] = [:]
        for row in rows {
            scans[try row.decode(String.self, "relname")] = (try row.decode(Int.self, "seq_scan"), try row.decode(Int.self, "idx_scan"))
        }
        return scans
    }
}

extension OwnershipClaimBatchPlanTests {
    @Test("a batch of attaches reads and writes only its readers' rows, at 10,000 registered readers")
    func attachBatchTouchesOnlyItsReaders() async throws {
        try await withOwnershipDatabase { client in
            let fixtures = OwnershipFixtures(client: client)
            _ = try await fixtures.seedCluster(nodes: ["node-a"])
            try await Self.registerFleet(client)
            try await client.execute("INSERT INTO reader_ownership (reader_id) SELECT id FROM readers")
            try await client.execute("ANALYZE reader_ownership")
            let parameters: [PostgresValue?] = [
                PostgresValue(text: OwnershipClaimBatcher.arrayLiteral(["tmr_fleet_1", "tmr_fleet_2", "tmr_fleet_3"])),
                PostgresValue("node-a"),
                // Battery levels reported with the attaches (the second reader's not written with it).
                PostgresValue(text: OwnershipClaimBatcher.arrayLiteral(["0.5", nil, "0.8"])),
                PostgresValue(text: OwnershipClaimBatcher.arrayLiteral(["t", "f", "t"])),
            ]
            let plan = try await client.query("EXPLAIN " + OwnershipStatements.readersAttached, parameters)
                .map { try $0.decode(String.self, at: 0) }
            let text = plan.joined(separator: "\n")
            #expect(text.contains("Index Scan using reader_ownership_pkey"), "\(text)")
            #expect(!text.contains("Seq Scan on reader_ownership"), "\(text)")
            #expect(!text.contains("Seq Scan on readers"), "\(text)")
            #expect(!text.contains("Seq Scan on reader_update_status"), "\(text)")
        }
    }

    /// Registers 10,000 readers (`tmr_fleet_1` …) to the fixtures' account, and lets the planner
    /// know (`ANALYZE`).
    static func registerFleet(_ client: PostgresClient) async throws {
        try await client.execute(
            """
            INSERT INTO readers (id, account_id, serial_number, device_type, location_id, status)
            SELECT 'tmr_fleet_' || i, $1, 'FLEET-' || i, 'bbpos_wisepos_e', $2, 'online' FROM generate_series(1, 10000) AS i
            """,
            [PostgresValue(OwnershipFixtures.account), PostgresValue(OwnershipFixtures.location)]
        )
        try await client.execute("ANALYZE readers")
    }
}
