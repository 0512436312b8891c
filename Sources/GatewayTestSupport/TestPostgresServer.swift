import Foundation
import GatewayCore
import GatewayPostgres
import GatewayRepositories

/// The state behind ``TestPostgres``: the server, its template databases and
/// an administration client.
///
/// The server stops with the test process and nothing waits for it: it is spawned with the
/// parent-death signal SIGINT (PostgreSQL's fast shutdown), and the next run removes its
/// directory (``removeLeftovers()``). An exit handler that waited for it kept the process
/// half torn down for that long, while other threads still ran in libraries whose own exit
/// handlers had already cleaned them up (OpenSSL registers one when first used).
actor TestPostgresServer {
    static let shared = TestPostgresServer()

    struct Started: Sendable {
        let server: EmbeddedPostgres
        let admin: PostgresClient
    }

    private var starting: Task<Started, any Error>?
    /// The removal of earlier runs' directories, started with the server (see ``started()``).
    private var leftoverRemoval: Task<Void, Never>?
    private var templates: [String: Task<String, any Error>] = [:]
    private var nextDatabase = 0
    private let logger = Logger(component: "test-postgres")

    static func configuration(directory: String) -> EmbeddedPostgresConfiguration {
        var configuration = EmbeddedPostgresConfiguration(dataDirectory: directory)
        configuration.durable = false
        configuration.maximumConnections = 1000
        configuration.databaseName = "postgres"
        configuration.settings = extraSettings(ProcessInfo.processInfo.environment["TEST_POSTGRES_SETTINGS"] ?? "")
        return configuration
    }

    /// Extra server settings from `TEST_POSTGRES_SETTINGS` (`name=value;name=value`), for the
    /// benchmarks that read `pg_stat_statements`
    /// (`TEST_POSTGRES_SETTINGS='shared_preload_libraries=pg_stat_statements'`).
    static func extraSettings(_ text: String) -> [String: String] {
        var settings: [String: String] = [:]
        for pair in text.split(separator: ";") {
            guard let equals = pair.firstIndex(of: "=") else { continue }
            let name = pair[..<equals].trimmingCharacters(in: .whitespaces)
            guard !name.isEmpty else { continue }
            settings[name] = pair[pair.index(after: equals)...].trimmingCharacters(in: .whitespaces)
        }
        return settings
    }

    func started() async throws -> Started {
        if let starting { return try await starting.value }
        // An earlier run's cluster holds a database per test (hundreds of thousands of files):
        // removing it took minutes on a loaded machine, and done before this run's server
        // started, on one of the cooperative pool's two threads, every test waited for it
        // (suites with a time limit failed). It goes on a thread of its own, and no test waits
        // for it: this run's server lives in a directory of its own. Benchmarks wait for it
        // (``leftoversRemoved()``), so that its CPU does not fall into their measurements.
        leftoverRemoval = Task.detached { await onOwnThread("test-postgres-cleanup") { Self.removeLeftovers() } }
        let logger = self.logger
        let task = Task<Started, any Error> {
            let directory = TestPostgres.makeTemporaryDirectory()
            let server = try await EmbeddedPostgres.start(Self.configuration(directory: directory), logger: logger)
            var admin = PostgresConfiguration(connectionString: server.connectionString(database: "postgres"))
            admin.maximumConnections = 2
            // Every test's database is made here, one CREATE DATABASE after another on these two
            // connections: a wave of tests starting together queues its set-ups, and on a loaded
            // machine the last one waits for all the others, longer than a gateway's 30 s
            // bound for a pool connection (which failed whole waves of tests in one run beside
            // another test run). Waiting for its turn is not a failure; the bound only catches a
            // server that stopped answering.
            admin.connectionWaitTimeout = .seconds(600)
            return Started(server: server, admin: try PostgresClient(configuration: admin, logger: logger))
        }
        starting = task
        return try await task.value
    }

    /// Returns once the directories of earlier runs are removed (the server is started first,
    /// which starts their removal).
    func leftoversRemoved() async throws {
        _ = try await started()
        await leftoverRemoval?.value
    }

    func makeDatabase(migrations: [Migration], maximumConnections: Int, pipelineDepth: Int?) async throws -> TestDatabase {
        let started = try await started()
        let template = try await template(for: migrations, started: started)
        nextDatabase += 1
        let name = "t_\(nextDatabase)"
        try await started.admin.execute("CREATE DATABASE \(name) TEMPLATE \(template)")
        var configuration = PostgresConfiguration(connectionString: started.server.connectionString(database: name))
        configuration.maximumConnections = maximumConnections
        if let pipelineDepth { configuration.pipelineDepth = pipelineDepth }
        let client = try PostgresClient(configuration: configuration, logger: Logger(component: "store"))
        return TestDatabase(name: name, connectionString: configuration.connectionString, client: client)
    }

    /// A database migrated with `migrations` once, cloned for every test that asks for the same list.
    private func template(for migrations: [Migration], started: Started) async throws -> String {
        let key = migrations.map { String($0.version) }.joined(separator: "_")
        if let existing = templates[key] { return try await existing.value }
        // Numbered, not named after the list: PostgreSQL cuts names to 63 bytes, and two long
        // lists sharing their first 63 characters would have shared one template.
        let name = "template_\(templates.count + 1)"
        let logger = self.logger
        let task = Task<String, any Error> {
            try await started.admin.execute("CREATE DATABASE \(name)")
            // An empty list means a truly empty database (not even schema_migrations).
            if migrations.isEmpty { return name }
            var configuration = PostgresConfiguration(connectionString: started.server.connectionString(database: name))
            configuration.maximumConnections = 1
            let client = try PostgresClient(configuration: configuration, logger: logger)
            do {
                try await Migrator(client: client, migrations: migrations, logger: logger).migrate()
            } catch {
                await client.shutdown()
                throw error
            }
            await client.shutdown()
            return name
        }
        templates[key] = task
        return try await task.value
    }

    /// Removes the directories of earlier test runs whose process is gone.
    private static func removeLeftovers() {
        let base = FileManager.default.temporaryDirectory.path
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: base) else { return }
        for entry in entries where entry.hasPrefix("rgtest-") {
            let parts = entry.split(separator: "-")
            guard parts.count >= 2, let pid = pid_t(parts[1]), pid != getpid() else { continue }
            if kill(pid, 0) == 0 || errno == EPERM { continue }
            try? FileManager.default.removeItem(atPath: base + "/" + entry)
        }
    }
}
