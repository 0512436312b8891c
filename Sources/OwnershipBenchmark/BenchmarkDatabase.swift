import GatewayCore
import GatewayStore

/// Schema and rows for the benchmark: the gateway's migrations, one account, `readers` online
/// readers named "1"…, and `sessions` sessions named "1"… (the claimants; pgbench's
/// `:client_id + 1`).
enum BenchmarkDatabase {
    static func prepare(_ client: PostgresClient, readers: Int, sessions: Int, logger: Logger) async throws {
        try await Migrator(client: client, logger: logger).migrate()
        try await client.execute(
            "INSERT INTO accounts (id, name, secret_key_sha256) VALUES ('acct_bench', 'bench', sha256('acct_bench'::bytea))"
        )
        try await client.execute("INSERT INTO locations (id, account_id, display_name) VALUES ('loc_bench', 'acct_bench', 'bench')")
        try await client.execute(
            """
            INSERT INTO readers (id, account_id, serial_number, device_type, location_id, status)
            SELECT i::text, 'acct_bench', 'SN-' || i, 'bbpos_wisepos_e', 'loc_bench', 'online'
            FROM generate_series(1, $1::integer) AS i
            """,
            [PostgresValue(readers)]
        )
        try await client.execute(
            """
            INSERT INTO sdk_sessions (id, account_id, pos_device_id, lane_label, node_id, lease_expires_at)
            SELECT i::text, 'acct_bench', 'pos-' || i, i::text, 'bench', now() + interval '1 day'
            FROM generate_series(1, $1::integer) AS i
            """,
            [PostgresValue(sessions)]
        )
        try await client.execute("INSERT INTO reader_ownership (reader_id, online, link_epoch) SELECT id, true, 1 FROM readers")
        try await client.execute("VACUUM ANALYZE")
    }
}
