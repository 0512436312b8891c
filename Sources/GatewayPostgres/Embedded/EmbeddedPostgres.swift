import CGatewayPostgres
import Foundation
import GatewayCore
import Synchronization

/// A private PostgreSQL server started from the installed binaries: the
/// gateway's default when no database URL is configured, and the server the
/// tests use.
///
/// ``start(_:logger:)`` takes the data directory's lock, creates the cluster
/// on first run (`initdb`, trust authentication, local socket only), clears a
/// stale `postmaster.pid` or stops an orphaned postmaster left by a killed
/// gateway, starts `postgres` listening only on a Unix socket inside the data
/// directory, and creates the database. As root the server runs as the
/// `postgres` account. The server gets SIGINT (fast shutdown) if this process
/// dies; ``stop()`` does the same and waits for it.
public final class EmbeddedPostgres: Sendable {
    public let configuration: EmbeddedPostgresConfiguration
    /// The absolute data directory.
    public let dataDirectory: String
    /// The directory that holds the server's Unix socket.
    public var socketDirectory: String { dataDirectory }
    /// The cluster directory (`PGDATA`).
    public var clusterDirectory: String { dataDirectory + "/postgres" }
    /// The socket file itself.
    public var socketPath: String { socketDirectory + "/.s.PGSQL.5432" }
    /// The superuser the server was initialised with.
    public static let superuser = "postgres"

    private let logger: Logger
    private let server: ChildProcess
    private let lock: DataDirectoryLock
    private let stopped = Atomic<Bool>(false)

    private init(configuration: EmbeddedPostgresConfiguration, dataDirectory: String, logger: Logger, server: ChildProcess, lock: DataDirectoryLock) {
        self.configuration = configuration
        self.dataDirectory = dataDirectory
        self.logger = logger
        self.server = server
        self.lock = lock
    }

    /// A libpq connection string for `database` (default: the configured one).
    public func connectionString(database: String? = nil) -> String {
        "host=\(Self.quoteConnectionValue(socketDirectory)) port=5432 user=\(Self.superuser) dbname=\(Self.quoteConnectionValue(database ?? configuration.databaseName))"
    }

    /// The server's pid.
    public var serverPID: pid_t { server.pid }

    /// Creates (first run) and starts the server, and creates the database.
    public static func start(_ configuration: EmbeddedPostgresConfiguration, logger: Logger) async throws(StoreError) -> EmbeddedPostgres {
        let dataDirectory = absolutePath(configuration.dataDirectory)
        let runAs: ChildProcess.User?
        if geteuid() == 0 {
            guard let user = ChildProcess.User.named("postgres") else {
                throw StoreError(
                    .embeddedServerFailed,
                    "PostgreSQL refuses to run as root and there is no `postgres` account; install the postgresql package or run as another user"
                )
            }
            runAs = user
        } else {
            runAs = nil
        }
        try prepareDirectory(dataDirectory, owner: runAs)
        let lock = try await DataDirectoryLock.acquire(dataDirectory: dataDirectory)
        do throws(StoreError) {
            let binaries = try await findBinaries(configuration.binDirectory)
            let cluster = dataDirectory + "/postgres"
            try await checkAccess(dataDirectory, user: runAs)
            try await createClusterIfNeeded(cluster, binaries: binaries, user: runAs, durable: configuration.durable, logger: logger)
            try await clearStalePostmaster(cluster: cluster, logger: logger)
            let server = try await launch(configuration, dataDirectory: dataDirectory, binaries: binaries, user: runAs)
            let embedded = EmbeddedPostgres(configuration: configuration, dataDirectory: dataDirectory, logger: logger, server: server, lock: lock)
            do throws(StoreError) {
                try await embedded.waitUntilReady()
                try await embedded.createDatabaseIfNeeded()
            } catch {
                await embedded.stop()
                throw error
            }
            logger.info("embedded PostgreSQL is running", [
                "data_dir": dataDirectory, "socket": embedded.socketPath, "pid": server.pid,
                "log": dataDirectory + "/postgres.log",
            ])
            return embedded
        } catch {
            lock.release()
            throw error
        }
    }

    /// Fast shutdown (SIGINT), waited for; then releases the data directory. Idempotent.
    public func stop() async {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        server.signal(SIGINT)
        if await server.wait(timeout: .seconds(30)) == nil {
            logger.warning("PostgreSQL did not stop within 30 s; sending SIGQUIT")
            server.signal(SIGQUIT)
            if await server.wait(timeout: .seconds(10)) == nil {
                server.signal(SIGKILL)
                _ = await server.wait(timeout: .seconds(10))
            }
        }
        lock.release()
        logger.info("embedded PostgreSQL stopped", ["data_dir": dataDirectory])
    }

    // MARK: start-up steps

    /// Waits until the server accepts connections, it exits, or the start timeout passes.
    ///
    /// The postmaster writes its state into `postmaster.pid` (in the cluster directory) and
    /// creates its socket in the socket directory; it marks the file `ready` once it accepts
    /// connections. So the check (a `PQping`) runs again whenever either directory changes
    /// (inotify) or the server exits (its reaper's descriptor), and never on a timer.
    private func waitUntilReady() async throws(StoreError) {
        let deadline = ContinuousClock.now + configuration.startTimeout
        let conninfo = connectionString(database: "postgres")
        // Watch before the first check, so a change right after it is not missed.
        let changes = DirectoryChanges([clusterDirectory, socketDirectory])
        if changes == nil { logger.warning("inotify is unavailable; waiting for PostgreSQL to start by its exit and the start timeout only") }
        let events = [changes?.descriptor, server.exitDescriptor >= 0 ? server.exitDescriptor : nil].compactMap { $0 }
        while true {
            changes?.drain()
            if PQping(conninfo) == PQPING_OK { return }
            if let status = server.poll() {
                throw StoreError(
                    .embeddedServerFailed,
                    "PostgreSQL exited with status \(status) while starting; see \(dataDirectory)/postgres.log",
                    underlying: Self.tail(of: dataDirectory + "/postgres.log")
                )
            }
            if ContinuousClock.now >= deadline {
                throw StoreError(
                    .embeddedServerFailed,
                    "PostgreSQL did not accept connections within \(configuration.startTimeout); see \(dataDirectory)/postgres.log",
                    underlying: Self.tail(of: dataDirectory + "/postgres.log")
                )
            }
            if events.isEmpty {
                _ = await server.wait(timeout: ContinuousClock.now.duration(to: deadline))
            } else {
                _ = await DescriptorWait.firstReadable(events, until: deadline)
            }
        }
    }

    private func createDatabaseIfNeeded() async throws(StoreError) {
        // `any`: a cluster made by pg_basebackup starts as a read-only standby, whose database
        // is already there (a copy of its primary's).
        var admin = PostgresConfiguration(connectionString: connectionString(database: "postgres") + " target_session_attrs=any")
        admin.maximumConnections = 1
        let client = try PostgresClient(configuration: admin, logger: logger)
        do throws(StoreError) {
            let rows = try await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [.init(configuration.databaseName)])
            if rows.isEmpty {
                try await client.execute("CREATE DATABASE " + PostgresStoreLoop.quoteIdentifier(configuration.databaseName))
                logger.info("created database", ["database": configuration.databaseName])
            }
        } catch {
            await client.shutdown()
            throw error
        }
        await client.shutdown()
    }

    static func quoteConnectionValue(_ value: String) -> String {
        "'" + value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'") + "'"
    }

    static func absolutePath(_ path: String) -> String {
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        return URL(fileURLWithPath: absolute).standardizedFileURL.path
    }

    /// The last lines of a log file, for error messages.
    static func tail(of path: String, lines: Int = 5) -> String {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return "" }
        return text.split(separator: "\n").suffix(lines).joined(separator: " | ")
    }
}
