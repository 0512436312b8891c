import GatewayStore

/// Schema and rows for the benchmark: one account, `readers` online readers named "1"…, and
/// `sessions` sessions named "1"… (the claimants; pgbench's `:client_id + 1`).
enum BenchmarkDatabase {
    static func prepare(_ client: PostgresClient, readers: Int, sessions: Int) async throws {
        for statement in BenchmarkSchema.statements { try await client.execute(statement) }
        try await client.execute("INSERT INTO accounts (id) VALUES ('acct_bench')")
        try await client.execute("INSERT INTO locations (id, account_id) VALUES ('loc_bench', 'acct_bench')")
        try await client.execute(
            "INSERT INTO readers (id, account_id, location_id) SELECT i::text, 'acct_bench', 'loc_bench' FROM generate_series(1, $1::integer) AS i",
            [PostgresValue(readers)]
        )
        try await client.execute(
            """
            INSERT INTO sdk_sessions (id, account_id, lane_label, lease_expires_at)
            SELECT i::text, 'acct_bench', i::text, now() + interval '1 day' FROM generate_series(1, $1::integer) AS i
            """,
            [PostgresValue(sessions)]
        )
        try await client.execute("INSERT INTO reader_ownership (reader_id, online, link_epoch) SELECT id, true, 1 FROM readers")
        try await client.execute("VACUUM ANALYZE")
    }
}
