import Foundation
import GatewayCore
import GatewayPostgres
import GatewayRepositories
import GatewayTestSupport
import Synchronization

/// The cluster's PostgreSQL: its own server on its own data directory (Unix socket only),
/// migrated once, that a test can stop and start again on the same directory, so the
/// replicas' connection string stays valid across the restart.
///
/// Or, for failover tests, a primary with a streaming standby (``ReplicatedPostgres``): the
/// replicas get both addresses with `target_session_attrs=read-write`, and a test kills the
/// primary and promotes the standby (``failOver()``).
final class ClusterPostgres: Sendable {
    let dataDirectory: String
    let databaseName = "reader_gateway"
    private let server = Mutex<EmbeddedPostgres?>(nil)
    /// The replicated pair, when the cluster runs one (then `server` stays nil).
    let pair: ReplicatedPostgres?
    private let logger = Logger(component: "cluster-postgres")

    private init(dataDirectory: String, pair: ReplicatedPostgres? = nil) {
        self.dataDirectory = dataDirectory
        self.pair = pair
    }

    private static func configuration(_ directory: String) -> EmbeddedPostgresConfiguration {
        var configuration = EmbeddedPostgresConfiguration(dataDirectory: directory)
        configuration.durable = false
        configuration.maximumConnections = 200
        configuration.databaseName = "reader_gateway"
        return configuration
    }

    /// Creates the cluster (a primary and its standby with `replication`), starts it and
    /// applies every migration (unless `migrate` is false: the replicas will).
    static func start(
        in directory: String, replication: ReplicatedPostgres.Replication? = nil, migrate: Bool = true
    ) async throws -> ClusterPostgres {
        let postgres: ClusterPostgres
        if let replication {
            let pair = try await withDeadline(.seconds(120), "starting a PostgreSQL primary and its standby") {
                try await ReplicatedPostgres.start(in: directory, replication: replication)
            }
            postgres = ClusterPostgres(dataDirectory: directory, pair: pair)
        } else {
            postgres = ClusterPostgres(dataDirectory: directory)
            try await postgres.start()
        }
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
        pair?.connectionString ?? "host='\(dataDirectory)' port=5432 user=postgres dbname=\(databaseName)"
    }

    var isRunning: Bool { pair.map { !$0.serverPIDs.isEmpty } ?? server.withLock { $0 != nil } }

    /// The postmasters' pids while they run.
    var serverPIDs: [pid_t] { pair?.serverPIDs ?? server.withLock { $0.map { [$0.serverPID] } ?? [] } }

    /// Starts the server on the data directory (idempotent).
    func start() async throws {
        precondition(pair == nil, "a replicated pair fails over (failOver()); it is not stopped and started")
        if isRunning { return }
        let (directory, logger) = (dataDirectory, logger)
        let started = try await withDeadline(.seconds(90), "starting PostgreSQL") {
            try await EmbeddedPostgres.start(Self.configuration(directory), logger: logger)
        }
        server.withLock { $0 = started }
    }

    /// Fast shutdown (every connection is cut), waited for.
    func stop() async {
        if let pair {
            await pair.stop()
            return
        }
        guard let running = server.withLock({ slot -> EmbeddedPostgres? in
            defer { slot = nil }
            return slot
        }) else { return }
        await running.stop()
    }

    /// A failover: `kill -9` of the primary, then its standby promoted (`pg_promote()`), on
    /// the other address of the replicas' connection string. Returns when the promoted server
    /// accepts writes; the dead primary's directory gets a new standby with ``rebuildStandby()``.
    func failOver() async throws -> (killed: ContinuousClock.Instant, promoted: ContinuousClock.Instant) {
        let killed = try await killPrimary()
        return (killed, try await promoteStandby())
    }

    /// The failover's first half: `kill -9` of the primary. Returns when it did.
    func killPrimary() async throws -> ContinuousClock.Instant {
        guard let pair else { throw ClusterError("the cluster runs one PostgreSQL; set ClusterOptions.replication for a failover") }
        let killed = ContinuousClock.now
        await pair.killPrimary()
        return killed
    }

    /// The failover's second half: the standby promoted. Returns when it accepts writes.
    func promoteStandby() async throws -> ContinuousClock.Instant {
        guard let pair else { throw ClusterError("the cluster runs one PostgreSQL; set ClusterOptions.replication for a failover") }
        try await withDeadline(.seconds(90), "promoting the standby") { try await pair.promoteStandby() }
        return ContinuousClock.now
    }

    /// Asynchronous replication: the standby stops streaming once it has replayed everything;
    /// what commits afterwards is lost by the next failover (see
    /// ``ReplicatedPostgres/stopStandbyStreaming()``).
    func stopStandbyStreaming() async throws {
        guard let pair else { throw ClusterError("the cluster runs one PostgreSQL; set ClusterOptions.replication for a standby") }
        try await withDeadline(.seconds(90), "stopping the standby's stream") { try await pair.stopStandbyStreaming() }
    }

    /// A new standby of the promoted primary, streaming (synchronously, in that mode).
    func rebuildStandby() async throws {
        guard let pair else { throw ClusterError("the cluster runs one PostgreSQL; set ClusterOptions.replication for a standby") }
        try await withDeadline(.seconds(180), "making a new standby") { try await pair.rebuildStandby() }
    }

    /// Stop, then start on the same directory; returns how long the server was away.
    @discardableResult
    func restart(downtime: Duration = .zero) async throws -> Duration {
        let began = ContinuousClock.now
        if let pair {
            try await withDeadline(.seconds(120), "restarting the primary") { try await pair.restartPrimary(downtime: downtime) }
            return ContinuousClock.now - began
        }
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
        if let pair { return pair.tail(lines) }
        let text = (try? String(contentsOfFile: dataDirectory + "/postgres.log", encoding: .utf8)) ?? ""
        return text.split(separator: "\n", omittingEmptySubsequences: false).suffix(lines).joined(separator: "\n")
    }
}
