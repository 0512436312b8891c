import GatewayPostgres
import GatewayRepositories

/// The rows the claim benchmarks run on, shared by the ownership and service benchmarks so
/// both measure claims over the same kind of rows.
public enum ClaimBenchmarkRows {
    /// Seeds account `acct_<name>` with one location, `readers` online readers with ids
    /// "1"…, and `sessions` sessions with ids "1"… (the claimants; pgbench's
    /// `:client_id + 1`). Sessions and reader links are all held by node `name`: a single
    /// gateway's claims, which notify no other replica (migration 0006).
    public static func seed(_ client: PostgresClient, name: String, readers: Int, sessions: Int) async throws {
        let account = PostgresValue("acct_\(name)")
        let node = PostgresValue(name)
        try await client.execute(
            "INSERT INTO accounts (id, name, secret_key_sha256) VALUES ($1, $2, sha256($1::text::bytea))", [account, node]
        )
        try await client.execute(
            "INSERT INTO locations (id, account_id, display_name) VALUES ('loc_' || $2::text, $1, $2)", [account, node]
        )
        try await client.execute(
            """
            INSERT INTO readers (id, account_id, serial_number, device_type, location_id, status)
            SELECT i::text, $1, upper($2::text) || '-' || i, 'bbpos_wisepos_e', 'loc_' || $2::text, 'online'
            FROM generate_series(1, $3::integer) AS i
            """,
            [account, node, PostgresValue(readers)]
        )
        try await client.execute(
            """
            INSERT INTO sdk_sessions (id, account_id, pos_device_id, lane_label, node_id, lease_expires_at)
            SELECT i::text, $1, 'pos-' || i, i::text, $2, now() + interval '1 day'
            FROM generate_series(1, $3::integer) AS i
            """,
            [account, node, PostgresValue(sessions)]
        )
        try await client.execute(
            """
            INSERT INTO reader_ownership (reader_id, online, link_epoch, link_node)
            SELECT id, true, 1, $2 FROM readers WHERE account_id = $1
            """,
            [account, node]
        )
    }
}
