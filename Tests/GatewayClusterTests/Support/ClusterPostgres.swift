import Foundation
import GatewayCore
import GatewayPostgres
import GatewayRepositories
import Synchronization

/// The cluster's PostgreSQL: its own server on its own data directory (Unix socket only),
/// migrated once, that a test can stop and start again on the same directory, so the
/// replicas' connection string stays valid across the restart.
final class ClusterPostgres: Sendable {
    let dataDirectory: String
    let databaseName = "reader_gateway"
    private let server = Mutex<EmbeddedPostgres?>(nil)
    private let logger = Logger(component: "cluster-postgres")

    private init(dataDirectory: String) {
        self.dataDirectory = dataDirectory
    }

    private static func configuration(_ directory: String) -> EmbeddedPostgresConfiguration {
        var configuration = EmbeddedPostgresConfiguration(dataDirectory: directory)
        configuration.durable = false
        configuration.maximumConnections = 200
        configuration.databaseName = "reader_gateway"
        return configuration
    }

    /// Creates the cluster, starts it and applies every migration (unless `migrate` is false:
    /// the replicas will).
    static func start(in directory: String, migrate: Bool = true) async throws -> ClusterPostgres {
        let postgres = ClusterPostgres(dataDirectory: directory)
        try await postgres.start()
        guard migrate else { return postgres }
        let client = try postgres.makeClient(maximumConnections: 1)
        do {
            let logger = postgres.logger
            try await withDeadline(.seconds(60), "migrating the database") {
                try await Migrator(client: client, migrations: Migrations.all, logger: logger).migrate()
            }
        } catch {
            await client.shutdown()
            throw error
        }
        await client.shutdown()
        return postgres
    }

    /// The libpq connection string the replicas get as `--database-url`.
    var connectionString: String {
        "host='\(dataDirectory)' port=5432 user=postgres dbname=\(databaseName)"
    }

    var isRunning: Bool { server.withLock { $0 != nil } }

    /// The postmaster's pid while it runs.
    var serverPID: pid_t? { server.withLock { $0?.serverPID } }

    /// Starts the server on the data directory (idempotent).
    func start() async throws {
        if isRunning { return }
        let (directory, logger) = (dataDirectory, logger)
        let started = try await withDeadline(.seconds(90), "starting PostgreSQL") {
            try await EmbeddedPostgres.start(Self.configuration(directory), logger: logger)
        }
        server.withLock { $0 = started }
    }

    /// Fast shutdown (every connection is cut), waited for.
    func stop() async {
        guard let running = server.withLock({ slot -> EmbeddedPostgres? in
            defer { slot = nil }
            return slot
        }) else { return }
        await running.stop()
    }

    /// Stop, then start on the same directory; returns how long the server was away.
    @discardableResult
    func restart(downtime: Duration = .zero) async throws -> Duration {
        let began = ContinuousClock.now
        await stop()
        if downtime > .zero { try? await Task.sleep(for: downtime) }
        try await start()
        return ContinuousClock.now - began
    }

    /// A client for checks (the caller shuts it down).
    func makeClient(maximumConnections: Int = 2) throws -> PostgresClient {
        var configuration = PostgresConfiguration(connectionString: connectionString)
        configuration.maximumConnections = maximumConnections
        return try PostgresClient(configuration: configuration, logger: Logger(component: "cluster-check"))
    }

    /// The server's own log, last lines.
    func tail(_ lines: Int) -> String {
        let text = (try? String(contentsOfFile: dataDirectory + "/postgres.log", encoding: .utf8)) ?? ""
        return text.split(separator: "\n", omittingEmptySubsequences: false).suffix(lines).joined(separator: "\n")
    }
}
