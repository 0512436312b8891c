import GatewayCore
import GatewayPostgres
import GatewayRepositories
import Synchronization

/// The database: the embedded PostgreSQL when no URL is configured, the
/// client pool, and the schema migrations. Up once migrated; stopped last but one (after
/// the listener that uses it, before the ops endpoint).
final class StoreService: LifecycleService {
    let name = "store"
    private let options: ServerOptions
    private let logger = Logger(component: "store")
    private struct Running {
        var embedded: EmbeddedPostgres?
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

    func run(_ context: ServiceContext) async throws {
        do {
            let client = try await start()
            running.withLock { $0.outcome = .success(client) }
            startEnded.set()
        } catch {
            running.withLock { $0.outcome = .failure(error) }
            startEnded.set()
            await stop()
            throw error
        }
        context.started()
        _ = await context.shutdown.wait()
        await stop()
    }

    private func start() async throws -> PostgresClient {
        let connectionString: String
        if let url = options.databaseURL {
            connectionString = url
            readyMetadata = [("database", PostgresConfiguration(connectionString: url).redactedDescription)]
        } else {
            logger.notice(
                "no database URL configured: starting an embedded PostgreSQL (a development default; set --database-url or READER_GATEWAY_DATABASE_URL in production)",
                ["data_dir": options.dataDirectory]
            )
            var configuration = EmbeddedPostgresConfiguration(dataDirectory: options.dataDirectory)
            configuration.binDirectory = options.postgresBinDirectory
            configuration.maximumConnections = max(100, options.databasePoolSize * 2 + 10)
            let embedded = try await EmbeddedPostgres.start(configuration, logger: logger)
            running.withLock { $0.embedded = embedded }
            connectionString = embedded.connectionString()
            readyMetadata = [("data_dir", embedded.dataDirectory), ("socket", embedded.socketPath), ("database", configuration.databaseName)]
        }
        var configuration = PostgresConfiguration(connectionString: connectionString)
        configuration.maximumConnections = options.databasePoolSize
        let client = try PostgresClient(configuration: configuration, logger: logger)
        running.withLock { $0.client = client }
        try await client.ping()
        try await Migrator(client: client, logger: logger).migrate()
        return client
    }

    /// Stops what the start got to: the pool, then the embedded server.
    private func stop() async {
        let (client, embedded) = running.withLock { running in
            let taken = (running.client, running.embedded)
            running.client = nil
            running.embedded = nil
            return taken
        }
        await client?.shutdown()
        await embedded?.stop()
    }
}
