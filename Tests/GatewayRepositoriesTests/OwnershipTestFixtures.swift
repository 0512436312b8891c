import Foundation
import GatewayCore
import GatewayDomain
import GatewayPostgres
import GatewayRepositories

/// Rows the ownership tests need, written straight into the tables (fixtures only: the code
/// under test goes through ``OwnershipStore``).
struct OwnershipFixtures {
    let client: PostgresClient
    static let account = "acct_test"
    static let location = "loc_test"

    func seedAccount() async throws {
        try await OwnershipSchemaFixtures.insertAccount(client, id: Self.account, location: Self.location)
    }

    /// Seeds the account and registers `nodes` (internal addresses 127.0.0.1:7001, :7002,
    /// …): the ownership and cluster stores a link test drives.
    func seedCluster(nodes: [String]) async throws -> (OwnershipStore, ClusterStore) {
        try await seedAccount()
        let cluster = ClusterStore(client: client)
        for (index, node) in nodes.enumerated() {
            try await cluster.register(node: node, internalAddress: "127.0.0.1:\(7001 + index)")
        }
        return (OwnershipStore(client: client), cluster)
    }

    func registerReader(_ reader: ReaderID) async throws {
        try await OwnershipSchemaFixtures.insertReader(client, id: reader.rawValue, account: Self.account, location: Self.location)
    }

    func openSession(_ session: SessionID, lane: LaneLabel, leaseSeconds: Int = 3600) async throws {
        try await OwnershipSchemaFixtures.insertSession(
            client,
            id: session.rawValue,
            account: Self.account,
            lane: lane.rawValue,
            leaseSeconds: leaseSeconds
        )
    }

    func expireLease(_ session: SessionID) async throws {
        try await OwnershipSchemaFixtures.expireSession(client, id: session.rawValue)
    }

    /// Puts a reader's ownership row in an exact state.
    func setOwnership(
        _ reader: ReaderID,
        online: Bool,
        epoch: Int64,
        generation: Int64,
        owner: ReaderOwner? = nil,
        command: ReaderCommand? = nil
    ) async throws {
        try await client.execute(
            """
            INSERT INTO reader_ownership (reader_id, online, link_epoch, generation, session_id, lane_label, command, command_session_id, since)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, now())
            ON CONFLICT (reader_id) DO UPDATE SET online = $2, link_epoch = $3, generation = $4, session_id = $5,
                lane_label = $6, command = $7, command_session_id = $8
            """,
            [
                PostgresValue(reader.rawValue), PostgresValue(online), PostgresValue(epoch), PostgresValue(generation),
                owner.map { PostgresValue($0.session.rawValue) }, owner.map { PostgresValue($0.lane.rawValue) },
                command.map { PostgresValue($0.rawValue) }, command == nil ? nil : owner.map { PostgresValue($0.session.rawValue) },
            ]
        )
    }

    /// Every history row of a reader, oldest first.
    func history(_ reader: ReaderID) async throws -> [HistoryRow] {
        let rows = try await client.query(
            """
            SELECT id, from_session_id, to_session_id, generation, reason::text AS reason
            FROM ownership_history WHERE reader_id = $1 ORDER BY id
            """,
            [PostgresValue(reader.rawValue)]
        )
        return try rows.map { row in
            HistoryRow(
                id: try row.decode(Int64.self, "id"),
                from: try row.decode(String?.self, "from_session_id"),
                to: try row.decode(String?.self, "to_session_id"),
                generation: try row.decode(Int64.self, "generation"),
                reason: try row.decode(String.self, "reason")
            )
        }
    }

    struct HistoryRow: Hashable, Sendable {
        var id: Int64
        var from: String?
        var to: String?
        var generation: Int64
        var reason: String
    }
}
