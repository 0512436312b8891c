import GatewayPostgres
import GatewayRepositories

/// One row of `reader_ownership`, as the checks read it.
struct OwnershipRow: Sendable, Equatable, CustomStringConvertible {
    var reader: String
    var session: String?
    var lane: String?
    var generation: Int64
    var epoch: Int64
    var node: String?
    var online: Bool

    var description: String {
        "\(reader) owner=\(lane ?? "-")/\(session ?? "-") gen=\(generation) epoch=\(epoch) node=\(node ?? "-") online=\(online)"
    }
}

/// One row of `ownership_history`.
struct HistoryRow: Sendable, Equatable, CustomStringConvertible {
    var id: Int64
    var reader: String
    var from: String?
    var to: String?
    var toLane: String?
    var generation: Int64
    var reason: String

    var description: String { "#\(id) \(reason) gen=\(generation) \(from ?? "-") -> \(to ?? "-")(\(toLane ?? "-"))" }
}

/// What PostgreSQL says, read with a fresh client each time (the server may have restarted).
struct ClusterDatabase: Sendable {
    let postgres: ClusterPostgres

    /// Runs `body` with a fresh client (shut down afterwards), within 20 s.
    func withClient<T: Sendable>(_ body: @escaping @Sendable (PostgresClient) async throws -> T) async throws -> T {
        let client = try postgres.makeClient(maximumConnections: 1)
        let result: Result<T, any Error>
        do {
            result = .success(try await withDeadline(.seconds(20), "a check query") { try await body(client) })
        } catch {
            result = .failure(error)
        }
        // A client stuck on a server that went away must not hold the test up either.
        _ = try? await withDeadline(.seconds(5), "closing a check client") { await client.shutdown() }
        return try result.get()
    }

    /// Whether migration 0004 (the cluster columns) is applied.
    func hasClusterSchema() async throws -> Bool {
        try await withClient { client in
            !(try await client.query(
                "SELECT 1 FROM information_schema.columns WHERE table_name = 'reader_ownership' AND column_name = 'link_node'"
            )).isEmpty
        }
    }

    func ownership() async throws -> [String: OwnershipRow] {
        let cluster = try await hasClusterSchema()
        return try await withClient { client in
            let rows = try await client.query("""
                SELECT reader_id, session_id, lane_label, generation, link_epoch, online,
                       \(cluster ? "link_node" : "NULL::text AS link_node")
                FROM reader_ownership
                """)
            var result: [String: OwnershipRow] = [:]
            for row in rows {
                let reader = try row.decode(String.self, "reader_id")
                result[reader] = OwnershipRow(
                    reader: reader, session: try row.decode(String?.self, "session_id"), lane: try row.decode(String?.self, "lane_label"),
                    generation: try row.decode(Int64.self, "generation"), epoch: try row.decode(Int64.self, "link_epoch"),
                    node: try row.decode(String?.self, "link_node"), online: try row.decode(Bool.self, "online")
                )
            }
            return result
        }
    }

    func history(_ reader: String) async throws -> [HistoryRow] {
        try await withClient { client in
            let rows = try await client.query("""
                SELECT id, reader_id, from_session_id, to_session_id, to_lane_label, generation, reason::text AS reason
                FROM ownership_history WHERE reader_id = $1 ORDER BY id
                """, [.init(reader)])
            return try rows.map { row in
                HistoryRow(
                    id: try row.decode(Int64.self, "id"), reader: try row.decode(String.self, "reader_id"),
                    from: try row.decode(String?.self, "from_session_id"), to: try row.decode(String?.self, "to_session_id"),
                    toLane: try row.decode(String?.self, "to_lane_label"), generation: try row.decode(Int64.self, "generation"),
                    reason: try row.decode(String.self, "reason")
                )
            }
        }
    }

    /// The replicas registered now (empty before migration 0004).
    func nodes() async throws -> [String] {
        guard try await hasClusterSchema() else { return [] }
        return try await withClient { client in
            try await client.query("SELECT node_id FROM gateway_nodes ORDER BY node_id").map { try $0.decode(String.self, "node_id") }
        }
    }

    /// Open sessions and the replica recorded for each.
    func openSessions() async throws -> [String: String] {
        try await withClient { client in
            var result: [String: String] = [:]
            for row in try await client.query("SELECT id, node_id FROM sdk_sessions WHERE closed_at IS NULL") {
                result[try row.decode(String.self, "id")] = try row.decode(String.self, "node_id")
            }
            return result
        }
    }

    /// Problems with a reader's history: the changes of owner (every reason but
    /// refused_busy) must carry generations 1, 2, 3, ... up to the row's generation, in the
    /// order they were recorded, each starting from the owner the previous one left. After a
    /// PostgreSQL failover the next change may jump to the new timeline's floor (a multiple
    /// of 2^40, migration 0020) and counts on by one from there.
    func historyProblems(_ reader: String, current: OwnershipRow?) async throws -> [String] {
        let changes = try await history(reader).filter { $0.reason != "refused_busy" }
        var problems: [String] = []
        var previousTo: String?
        var previousGeneration: Int64 = 0
        for (index, change) in changes.enumerated() {
            let timelineFloor = change.generation > previousGeneration + 1 && change.generation % Self.timelineFloorStep == 0
            if change.generation != previousGeneration + 1 && !timelineFloor {
                problems.append("\(reader): change \(index + 1) has generation \(change.generation) after \(previousGeneration): \(change)")
            }
            previousGeneration = change.generation
            if change.from != previousTo {
                problems.append("\(reader): change \(index + 1) starts from \(change.from ?? "nobody") but the previous left \(previousTo ?? "nobody"): \(change)")
            }
            previousTo = change.to
        }
        if let current {
            if current.generation != previousGeneration {
                problems.append("\(reader): row generation \(current.generation) but the last change recorded \(previousGeneration)")
            }
            if current.session != previousTo {
                problems.append("\(reader): row owner \(current.session ?? "nobody") but history ends with \(previousTo ?? "nobody")")
            }
        }
        return problems
    }
}

extension ClusterDatabase {
    /// The floor of PostgreSQL timeline T is `(T - 1)` times this (migration 0020).
    static let timelineFloorStep: Int64 = 1 << 40

    /// Each registered replica's release as its node row records it (nil: not recorded).
    func nodeVersions() async throws -> [String: String?] {
        try await withClient { client in
            var result: [String: String?] = [:]
            for row in try await client.query("SELECT node_id, to_jsonb(n) ->> 'version' AS version FROM gateway_nodes n") {
                result[try row.decode(String.self, "node_id")] = try row.decode(String?.self, "version")
            }
            return result
        }
    }

    /// The newest migration applied, and how many readers are registered (both only grow: a
    /// restore from a backup would take them back).
    func schemaAndReaders() async throws -> (schema: Int, readers: Int) {
        try await withClient { client in
            let row = try await client.query(
                "SELECT (SELECT max(version) FROM schema_migrations) AS schema, (SELECT count(*) FROM readers) AS readers"
            )[0]
            return (try row.decode(Int.self, "schema"), Int(try row.decode(Int64.self, "readers")))
        }
    }
}
