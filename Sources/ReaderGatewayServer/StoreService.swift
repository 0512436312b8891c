import GatewayCore
import GatewayPostgres
import GatewayRepositories
import Synchronization

/// The database: the embedded PostgreSQL when no URL is configured, the
/// client pool, and the schema migrations.
final class StoreService: GatewayService {
    let name = "store"
    private let options: ServerOptions
    private let logger = Logger(component: "store")
    private struct Running {
        var embedded: EmbeddedPostgres?
        var client: PostgresClient?
    }
    private let running = Mutex(Running())

    init(options: ServerOptions) { self.options = options }

    /// The client, once started.
    var client: PostgresClient? { running.withLock { $0.client } }

    /// Where the data lives and how to reach the database, for the "ready" line (never a password).
    private(set) var readyMetadata: [(String, String)] {
        get { readyFields.withLock { $0 } }
        set { readyFields.withLock { $0 = newValue } }
    }
    private let readyFields = Mutex<[(String, String)]>([])

    func start() async throws {
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
    }

    func stop() async {
        let (client, embedded) = running.withLock { running in
            let taken = (running.client, running.embedded)
            running = Running()
            return taken
        }
        await client?.shutdown()
        await embedded?.stop()
    }
}
