import GatewayCore
import GatewayPostgres
import GatewayRepositories
import GatewayTestSupport

/// A fresh, migrated database on the test run's PostgreSQL for one ownership test.
///
/// `pipelineDepth: 1` for a test that holds a lock while it watches statements wait on it: a
/// statement pipelined behind one the lock holds back would wait with it.
func withOwnershipDatabase(connections: Int = 8, pipelineDepth: Int? = nil, _ body: (PostgresClient) async throws -> Void) async throws {
    let database = try await TestPostgres.database(maximumConnections: connections, pipelineDepth: pipelineDepth)
    do {
        try await body(database.client)
    } catch {
        await database.close()
        throw error
    }
    await database.close()
}

/// The same, with a second client standing for another gateway replica.
func withOwnershipDatabase(secondClient: Bool, _ body: (PostgresClient, PostgresClient) async throws -> Void) async throws {
    let database = try await TestPostgres.database(maximumConnections: 4)
    let replica = secondClient ? try database.makeClient(maximumConnections: 4) : database.client
    do {
        try await body(database.client, replica)
    } catch {
        if secondClient { await replica.shutdown() }
        await database.close()
        throw error
    }
    if secondClient { await replica.shutdown() }
    await database.close()
}

/// Rows of migration 0001's tables, with just the columns the ownership tests care about.
enum OwnershipSchemaFixtures {
    static func insertAccount(_ client: PostgresClient, id: String, location: String) async throws {
        try await client.execute(
            "INSERT INTO accounts (id, name, secret_key_sha256) VALUES ($1, $1, sha256(convert_to($1, 'UTF8')))",
            [PostgresValue(id)]
        )
        try await client.execute(
            "INSERT INTO locations (id, account_id, display_name) VALUES ($1, $2, $1)",
            [PostgresValue(location), PostgresValue(id)]
        )
    }

    static func insertReader(_ client: PostgresClient, id: String, account: String, location: String) async throws {
        try await client.execute(
            """
            INSERT INTO readers (id, account_id, serial_number, device_type, location_id)
            VALUES ($1, $2, 'SN-' || $1, 'bbpos_wisepos_e', $3)
            """,
            [PostgresValue(id), PostgresValue(account), PostgresValue(location)]
        )
    }

    static func insertSession(_ client: PostgresClient, id: String, account: String, lane: String, leaseSeconds: Int) async throws {
        try await client.execute(
            """
            INSERT INTO sdk_sessions (id, account_id, pos_device_id, lane_label, node_id, lease_expires_at)
            VALUES ($1, $2, 'pos-' || $1, $3, 'node-test', now() + make_interval(secs => $4))
            """,
            [PostgresValue(id), PostgresValue(account), PostgresValue(lane), PostgresValue(leaseSeconds)]
        )
    }

    static func expireSession(_ client: PostgresClient, id: String) async throws {
        try await client.execute(
            "UPDATE sdk_sessions SET lease_expires_at = now() - interval '1 second' WHERE id = $1",
            [PostgresValue(id)]
        )
    }
}
