import GatewayDomain
import GatewayPostgres
@testable import GatewayRepositories
import Testing

/// What a claim batch costs PostgreSQL must not grow with the fleet: the claimed readers' rows
/// are found by key, never by reading the whole `readers` table.
@Suite("Ownership store: claim batch plans")
struct OwnershipClaimBatchPlanTests {
    @Test("a batch with the readers' rows looks each one up by key, at 10,000 registered readers")
    func readerRowsAreLookedUpByKey() async throws {
        try await withOwnershipDatabase { client in
            let fixtures = OwnershipFixtures(client: client)
            try await fixtures.seedAccount()
            try await Self.registerFleet(client)
            let readers = ["tmr_fleet_1", "tmr_fleet_2", "tmr_fleet_3"]
            let parameters: [PostgresValue?] = [
                PostgresValue(text: OwnershipClaimBatcher.arrayLiteral(readers)),
                PostgresValue(text: OwnershipClaimBatcher.arrayLiteral(["sess_a", "sess_b", "sess_c"])),
                PostgresValue(text: OwnershipClaimBatcher.arrayLiteral(["Till 1", "Till 2", "Till 3"])),
                PostgresValue(text: "{false,false,false}"),
                PostgresValue(text: "{1,1,1}"),
                PostgresValue(text: "{1,1,1}"),
                PostgresValue(text: OwnershipClaimBatcher.arrayLiteral(Array(repeating: OwnershipFixtures.account, count: 3))),
            ]
            // EXPLAIN plans without running: nothing is claimed.
            let plan = try await client.query("EXPLAIN " + OwnershipStatements.claimBatchWithReaders, parameters)
                .map { try $0.decode(String.self, at: 0) }
            #expect(plan.contains { $0.contains("Index Scan") && $0.contains("readers") }, "\(plan.joined(separator: "\n"))")
            #expect(!plan.contains { $0.contains("Seq Scan on readers") }, "\(plan.joined(separator: "\n"))")
        }
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
            ]
            let plan = try await client.query("EXPLAIN " + OwnershipStatements.readersAttached, parameters)
                .map { try $0.decode(String.self, at: 0) }
            let text = plan.joined(separator: "\n")
            #expect(text.contains("Index Scan using reader_ownership_pkey"), "\(text)")
            #expect(!text.contains("Seq Scan on reader_ownership"), "\(text)")
            #expect(!text.contains("Seq Scan on readers"), "\(text)")
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
