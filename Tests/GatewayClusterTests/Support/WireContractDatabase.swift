import GatewayPostgres
import Synchronization

/// One raw lane's reads of PostgreSQL around its calls, on a connection of its own (made
/// again after PostgreSQL restarted).
final class ContractDatabase: Sendable {
    private let postgres: ClusterPostgres
    private let readerList: String
    private let client = Mutex<PostgresClient?>(nil)

    /// Reads the session's row and the rows of `readers` (and of any reader the session owns).
    init(postgres: ClusterPostgres, readers: [String]) {
        self.postgres = postgres
        readerList = readers.joined(separator: ",")
    }

    /// The session's row and the readers' owners, read again until PostgreSQL answers
    /// (`patience` at most: nil after that, or once `giveUp` says so).
    func snapshot(session: String, patience: Duration = .seconds(60), giveUp: @Sendable () -> Bool) async -> ContractSnapshot? {
        await reliably(patience: patience, giveUp: giveUp) { client in
            let sessions = try await client.query(
                """
                SELECT node_id, closed_at IS NULL AND lease_expires_at > now() AS alive, discovery_answered,
                       coalesce(array_to_string(discovered_readers, ','), '') AS discovered
                FROM sdk_sessions WHERE id = $1
                """,
                [PostgresValue(session)]
            )
            let owners = try await client.query(
                "SELECT reader_id, session_id, generation FROM reader_ownership WHERE reader_id = ANY(string_to_array($1, ',')) OR session_id = $2",
                [PostgresValue(self.readerList), PostgresValue(session)]
            )
            var snapshot = ContractSnapshot(session: nil, readers: [:])
            if let row = sessions.first {
                let discovered = try row.decode(String.self, "discovered")
                snapshot.session = ContractSnapshot.Session(
                    node: try row.decode(String?.self, "node_id"), alive: try row.decode(Bool.self, "alive"),
                    discoveryAnswered: try row.decode(Int64?.self, "discovery_answered"),
                    discovered: Set(discovered.split(separator: ",").map(String.init))
                )
            }
            for row in owners {
                snapshot.readers[try row.decode(String.self, "reader_id")] = ContractSnapshot.Owner(
                    session: try row.decode(String?.self, "session_id"), generation: try row.decode(Int64.self, "generation")
                )
            }
            return snapshot
        }
    }

    /// The changes of owner recorded between two snapshots for the readers whose generation moved.
    func changes(from before: ContractSnapshot, to after: ContractSnapshot, giveUp: @Sendable () -> Bool) async -> [HistoryRow]? {
        let moved = after.readers.keys.filter { after.readers[$0]!.generation != before.readers[$0]?.generation }
        guard !moved.isEmpty else { return [] }
        let low = moved.map { before.readers[$0]?.generation ?? 0 }.min()!
        let rows = await reliably(patience: .seconds(60), giveUp: giveUp) { client in
            try await client.query(
                """
                SELECT id, reader_id, from_session_id, to_session_id, to_lane_label, generation, reason::text AS reason
                FROM ownership_history
                WHERE reader_id = ANY(string_to_array($1, ',')) AND generation > $2 AND reason <> 'refused_busy'
                ORDER BY id
                """,
                [PostgresValue(moved.sorted().joined(separator: ",")), PostgresValue(low)]
            ).map { row in
                HistoryRow(
                    id: try row.decode(Int64.self, "id"), reader: try row.decode(String.self, "reader_id"),
                    from: try row.decode(String?.self, "from_session_id"), to: try row.decode(String?.self, "to_session_id"),
                    toLane: try row.decode(String?.self, "to_lane_label"), generation: try row.decode(Int64.self, "generation"),
                    reason: try row.decode(String.self, "reason")
                )
            }
        }
        // Each reader's own range: above the generation read before, up to the one read after.
        return rows?.filter { change in
            change.generation > (before.readers[change.reader]?.generation ?? 0) && change.generation <= (after.readers[change.reader]?.generation ?? 0)
        }
    }

    func close() async {
        guard let client = client.withLock({ slot -> PostgresClient? in
            defer { slot = nil }
            return slot
        }) else { return }
        _ = try? await withDeadline(.seconds(5), "closing a contract client") { await client.shutdown() }
    }

    /// Runs `body` until it succeeds, a fresh client after each failure (PostgreSQL may have
    /// restarted), waiting a little longer each time.
    private func reliably<T: Sendable>(patience: Duration, giveUp: @Sendable () -> Bool, _ body: @escaping @Sendable (PostgresClient) async throws -> T) async -> T? {
        let deadline = ContinuousClock.now + patience
        var backoff = Duration.milliseconds(50)
        while ContinuousClock.now < deadline && !giveUp() {
            do {
                let client = try self.client.withLock { slot in
                    if let existing = slot { return existing }
                    let made = try postgres.makeClient(maximumConnections: 1)
                    slot = made
                    return made
                }
                return try await withDeadline(.seconds(10), "a contract check query") { try await body(client) }
            } catch {
                await close()
                try? await Task.sleep(for: backoff)
                backoff = min(backoff * 2, .seconds(1))
            }
        }
        return nil
    }
}
