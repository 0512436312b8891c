import BenchmarkSupport
import GatewayCore
import GatewayPostgres
import GatewayRepositories

/// Schema and rows for the benchmark: the gateway's migrations and the claim rows
/// (`ClaimBenchmarkRows`).
enum BenchmarkDatabase {
    static func prepare(_ client: PostgresClient, readers: Int, sessions: Int, logger: Logger) async throws {
        try await Migrator(client: client, logger: logger).migrate()
        try await ClaimBenchmarkRows.seed(client, name: "bench", readers: readers, sessions: sessions)
        try await client.execute("VACUUM ANALYZE")
    }
}
