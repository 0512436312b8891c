import Foundation
import GatewayCore
import GatewayPostgres
import GatewayRepositories
import Synchronization

/// One throwaway PostgreSQL server per test process, and a fresh database
/// per test.
///
/// The server is the same ``EmbeddedPostgres`` the gateway runs, in a
/// temporary directory, without fsync. It starts on first use, is stopped and
/// deleted when the process exits, and dies with the process if the test run
/// is killed (parent-death signal); directories a killed run left are
/// removed by the next run. Each ``database(migrations:)`` call clones a
/// template database that was migrated once, so a test starts in a few
/// milliseconds with the schema in place, and tests can run in parallel.
///
/// ```swift
/// @Test func insertsAnAccount() async throws {
///     let database = try await TestPostgres.database()
///     defer { Task { await database.close() } }
///     try await database.client.execute("INSERT INTO accounts …", […])
/// }
/// ```
public enum TestPostgres {
    /// The shared server, started on first use.
    public static func server() async throws -> EmbeddedPostgres {
        try await TestPostgresServer.shared.started().server
    }

    /// Returns once the directories that earlier runs left are removed (started with the
    /// server, on a thread of its own). Tests never wait for it; a benchmark does before it
    /// measures, so that the removal's CPU (a test run's cluster is gigabytes of small files)
    /// does not fall into its figures.
    public static func leftoversRemoved() async throws {
        try await TestPostgresServer.shared.leftoversRemoved()
    }

    /// A new, empty database with `migrations` applied, and a client for it (statements
    /// pipelined up to `pipelineDepth` per connection, the product's default unless given).
    public static func database(
        migrations: [Migration] = Migrations.all, maximumConnections: Int = 4, pipelineDepth: Int? = nil
    ) async throws -> TestDatabase {
        try await TestPostgresServer.shared.makeDatabase(migrations: migrations, maximumConnections: maximumConnections, pipelineDepth: pipelineDepth)
    }

    /// Runs `body` with a fresh database and closes its client afterwards.
    @discardableResult
    public static func withDatabase<T: Sendable>(
        migrations: [Migration] = Migrations.all,
        isolation: isolated (any Actor)? = #isolation,
        _ body: (TestDatabase) async throws -> T
    ) async throws -> T {
        let database = try await database(migrations: migrations)
        do {
            let value = try await body(database)
            await database.close()
            return value
        } catch {
            await database.close()
            throw error
        }
    }

    /// A server of the caller's own (its own temporary directory), for tests
    /// that stop or restart it. Stop it with ``EmbeddedPostgres/stop()`` and
    /// remove ``EmbeddedPostgres/dataDirectory`` when done.
    public static func privateServer(logger: Logger = Logger(component: "test-postgres")) async throws -> EmbeddedPostgres {
        try await EmbeddedPostgres.start(TestPostgresServer.configuration(directory: makeTemporaryDirectory()), logger: logger)
    }

    /// A new directory under the system temporary directory, short enough for
    /// a Unix socket path, removed by a later run once its owner is gone.
    public static func makeTemporaryDirectory() -> String {
        let base = FileManager.default.temporaryDirectory.path
        let path = "\(base)/rgtest-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }
}

/// A database of its own for one test.
public final class TestDatabase: Sendable {
    /// The database's name.
    public let name: String
    /// A libpq connection string for it.
    public let connectionString: String
    /// A client connected to it.
    public let client: PostgresClient

    init(name: String, connectionString: String, client: PostgresClient) {
        self.name = name
        self.connectionString = connectionString
        self.client = client
    }

    /// Another client for the same database (the caller shuts it down).
    public func makeClient(maximumConnections: Int = 4) throws -> PostgresClient {
        var configuration = PostgresConfiguration(connectionString: connectionString)
        configuration.maximumConnections = maximumConnections
        return try PostgresClient(configuration: configuration, logger: Logger(component: "store"))
    }

    /// Shuts the client down (the database goes with the server at exit).
    public func close() async { await client.shutdown() }
}
