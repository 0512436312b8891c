import GatewayCore
import GatewayPostgres
import GatewayRepositories
import Synchronization

/// The database: the embedded PostgreSQL when no URL is configured, the
/// client pool, and the schema migrations. Up once migrated; stopped last but one (after
/// the gateway host that uses it, before the ops endpoint).
final class StorePart: LifecyclePart {
    let name = "store"
    private let options: ServerOptions
    private let logger = Logger(component: "store")
    private struct Running {
        var embedded: EmbeddedPostgres?
        /// The client while its run runs (the ops endpoint reads the pool's gauges).
        var client: PostgresClient?
        /// How the start ended; nil while it runs.
        var outcome: Result<PostgresClient, any Error>?
    }
    private let running = Mutex(Running())
    /// Set when the start has ended, either way.
    private let startEnded = Latch()

    init(options: ServerOptions) { self.options = options }

    /// The client, once the store is up (nil before, and after it stopped).
    var client: PostgresClient? { running.withLock { $0.client } }

    /// Waits until the store is up and returns its client; throws the store's own error when
    /// it could not start (or `CancellationError` when the waiting task is cancelled).
    func started() async throws -> PostgresClient {
        guard await startEnded.wait() else { throw CancellationError() }
        guard let outcome = running.withLock({ $0.outcome }) else { throw CancellationError() }
        return try outcome.get()
    }

    /// Where the data lives and how to reach the database, for the "ready" line (never a password).
    private(set) var readyMetadata: [(String, String)] {
        get { readyFields.withLock { $0 } }
        set { readyFields.withLock { $0 = newValue } }
    }
    private let readyFields = Mutex<[(String, String)]>([])

    /// The store's life: the embedded server (when no URL is configured), then the client,
    /// whose run is a child task ended at the shutdown, then the migrations; at the shutdown the
    /// client's run ends (closing the pool) before the embedded server stops.
    func run(_ context: ServiceContext) async throws {
        do {
            let connectionString = try await startDatabase()
            var configuration = PostgresConfiguration(connectionString: connectionString)
            configuration.maximumConnections = options.databasePoolSize
            let client = try PostgresClient(configuration: configuration, logger: logger)
            try await withThrowingDiscardingTaskGroup { group in
                group.addTask { await client.run() }
                running.withLock { $0.client = client }
                defer { running.withLock { $0.client = nil } }
                do {
                    try await client.ping()
                    try await Migrator(client: client, logger: logger).migrate()
                } catch {
                    finishStart(.failure(error))
                    throw error
                }
                finishStart(.success(client))
                context.started()
                _ = await context.shutdown.wait()
                group.cancelAll()
            }
        } catch {
            finishStart(.failure(error))
            await stopDatabase()
            throw error
        }
        await stopDatabase()
    }

    /// Records how the start ended (the first outcome stays) and wakes ``started()``'s waiters.
    private func finishStart(_ outcome: Result<PostgresClient, any Error>) {
        running.withLock { running in
            if running.outcome == nil { running.outcome = outcome }
        }
        startEnded.set()
    }

    /// Starts the embedded PostgreSQL when no URL is configured; returns how to reach the database.
    private func startDatabase() async throws -> String {
        if let url = options.databaseURL {
            readyMetadata = [("database", PostgresConfiguration(connectionString: url).redactedDescription)]
            return url
        }
        logger.notice(
            "no database URL configured: starting an embedded PostgreSQL (a development default; set --database-url or READER_GATEWAY_DATABASE_URL in production)",
            ["data_dir": options.dataDirectory]
        )
        var configuration = EmbeddedPostgresConfiguration(dataDirectory: options.dataDirectory)
        configuration.binDirectory = options.postgresBinDirectory
        configuration.maximumConnections = max(100, options.databasePoolSize * 2 + 10)
        let embedded = try await EmbeddedPostgres.start(configuration, logger: logger)
        running.withLock { $0.embedded = embedded }
        readyMetadata = [("data_dir", embedded.dataDirectory), ("socket", embedded.socketPath), ("database", configuration.databaseName)]
        return embedded.connectionString()
    }

    /// Stops the embedded server, if one was started (after the client's run ended).
    private func stopDatabase() async {
        let embedded = running.withLock { running in
            defer { running.embedded = nil }
            return running.embedded
        }
        await embedded?.stop()
    }
}
