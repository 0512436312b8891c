import Foundation
import GatewayCore
import GatewayPostgres
import Synchronization

/// A PostgreSQL primary with one streaming standby, for failover tests: the same
/// ``EmbeddedPostgres`` the gateway runs, in two directories (`a` and `b`, each listening only
/// on a Unix socket of its own, so each server has its own address), the standby made from
/// the primary with `pg_basebackup -R` (which writes `standby.signal` and `primary_conninfo`).
///
/// ``connectionString`` names both addresses with `target_session_attrs=read-write`, the way
/// an operator lists a primary and its standbys: whichever accepts writes is taken.
/// ``killPrimary()`` is `kill -9` of the primary's postmaster; ``promoteStandby()`` is
/// `pg_promote()` on the standby (what `pg_ctl promote` asks for); ``rebuildStandby()`` makes a
/// new standby of the promoted server in the dead primary's directory, so a run can fail over
/// again and the connection string stays valid.
///
/// With ``Replication/synchronous`` the primary runs `synchronous_commit = on` with
/// `synchronous_standby_names = '*'` once the standby streams: a commit is acknowledged only
/// after the standby flushed it. A promoted server starts without a synchronous standby (it
/// has none until one is rebuilt; waiting for one would stop every write), as Patroni's
/// `synchronous_mode` and CloudNativePG do.
public final class ReplicatedPostgres: Sendable {
    public enum Replication: String, Sendable {
        /// Commits wait for the standby's flush (`synchronous_standby_names = '*'`).
        case synchronous
        /// Commits return once the primary flushed them; the standby follows when it can.
        case asynchronous
    }

    public let replication: Replication
    /// Holds the two server directories `a` and `b`.
    public let directory: String
    public let databaseName: String
    private let logger: Logger

    private struct Servers {
        var slots: [EmbeddedPostgres?] = [nil, nil]
        var primary = 0
    }
    private let servers = Mutex(Servers())

    private init(directory: String, replication: Replication, databaseName: String, logger: Logger) {
        self.directory = directory
        self.replication = replication
        self.databaseName = databaseName
        self.logger = logger
    }

    /// Runs `body` on a new pair in a temporary directory, then stops both servers and removes
    /// the directory; when `body` throws, each server's last log lines are printed first.
    public static func withPair(replication: Replication, _ body: (ReplicatedPostgres) async throws -> Void) async throws {
        let pair = try await start(in: TestPostgres.makeTemporaryDirectory() + "/pair", replication: replication)
        defer { try? FileManager.default.removeItem(atPath: pair.directory) }
        do {
            try await body(pair)
        } catch {
            print(pair.tail(20))
            await pair.stop()
            throw error
        }
        await pair.stop()
    }

    /// Starts the primary in `directory/a`, creates `databaseName`, and a streaming standby of
    /// it in `directory/b`; returns once the standby streams (synchronously, in that mode).
    public static func start(
        in directory: String, replication: Replication, databaseName: String = "reader_gateway",
        logger: Logger = Logger(component: "test-postgres-pair")
    ) async throws -> ReplicatedPostgres {
        let pair = ReplicatedPostgres(directory: directory, replication: replication, databaseName: databaseName, logger: logger)
        // The servers run as the postgres account (as root): it must reach both directories.
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        chmod(directory, 0o755)
        let primary = try await EmbeddedPostgres.start(pair.configuration(slot: 0), logger: logger)
        pair.servers.withLock { $0.slots[0] = primary }
        do {
            try await pair.makeStandby(slot: 1)
        } catch {
            await pair.stop()
            throw error
        }
        return pair
    }

    /// The directory of slot `index` (0: `a`, 1: `b`).
    public func slotDirectory(_ index: Int) -> String { directory + (index == 0 ? "/a" : "/b") }

    /// Both servers' addresses, primary first at the start, taking whichever accepts writes.
    public var connectionString: String {
        "host='\(slotDirectory(0)),\(slotDirectory(1))' port=5432 user=\(EmbeddedPostgres.superuser) dbname=\(databaseName) target_session_attrs=read-write connect_timeout=5"
    }

    /// The slot of the current primary.
    public var primarySlot: Int { servers.withLock { $0.primary } }

    /// The postmasters' pids (for a watchdog).
    public var serverPIDs: [pid_t] { servers.withLock { $0.slots.compactMap { $0?.serverPID } } }

    /// A connection string for one server alone, whatever its role.
    public func connectionString(slot: Int, database: String? = nil) -> String {
        "host='\(slotDirectory(slot))' port=5432 user=\(EmbeddedPostgres.superuser) dbname=\(database ?? databaseName) target_session_attrs=any"
    }

    /// `kill -9` of every process of the primary, as when its machine dies: the postmaster is
    /// stopped first (so it forks nothing more), then it and all its children are killed. A
    /// postmaster killed alone leaves its backends running — still committing, and still
    /// streaming to the standby — until each notices.
    public func killPrimary() async {
        let victim = servers.withLock { servers -> EmbeddedPostgres? in
            defer { servers.slots[servers.primary] = nil }
            return servers.slots[servers.primary]
        }
        guard let victim else { return }
        let postmaster = victim.serverPID
        kill(postmaster, SIGSTOP)
        for child in Self.children(of: postmaster) { kill(child, SIGKILL) }
        kill(postmaster, SIGKILL)
        await victim.stop()  // Reaps it and releases its directory; the SIGINT finds it gone.
    }

    /// The processes whose parent is `pid` (from /proc).
    private static func children(of pid: pid_t) -> [pid_t] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { entry -> pid_t? in
            guard let candidate = pid_t(entry),
                  let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { return nil }
            // After the command's closing parenthesis: state, then the parent's pid.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return fields.count > 1 && pid_t(fields[1]) == pid ? candidate : nil
        }
    }

    /// Promotes the standby (`pg_promote(wait => true)`) and makes it the primary. Returns
    /// when the promoted server accepts writes.
    public func promoteStandby() async throws {
        let standby = servers.withLock { 1 - $0.primary }
        try await withAdmin(slot: standby) { client in
            let rows = try await client.query("SELECT pg_promote(true, 60) AS promoted")
            guard try rows.first?.decode(Bool.self, "promoted") == true else {
                throw ReplicatedPostgresError("the standby in \(slotDirectory(standby)) did not finish its promotion within 60 s")
            }
        }
        servers.withLock { $0.primary = standby }
        logger.info("standby promoted", ["slot": slotDirectory(standby)])
    }

    /// Waits until the standby has replayed everything the primary wrote so far. With
    /// asynchronous replication a standby may lag by any amount: a test that needs the
    /// standby to have something (a table it writes to after a failover) waits for it here
    /// before it kills the primary.
    public func waitForStandbyReplay() async throws {
        let primary = servers.withLock { $0.primary }
        try await withAdmin(slot: primary) { client in
            _ = try await waitFor("the standby to replay everything the primary wrote") {
                try await client.query("SELECT 1 FROM pg_stat_replication WHERE replay_lsn >= pg_current_wal_lsn()").count > 0
            }
        }
    }

    /// Asynchronous replication only: waits until the standby has replayed everything the
    /// primary wrote, then stops its stream (`primary_conninfo` cleared, configuration
    /// reloaded) and returns once the primary sees no standby. Every commit from then on is on
    /// the primary alone: a failover now loses it for sure.
    public func stopStandbyStreaming() async throws {
        guard replication == .asynchronous else {
            throw ReplicatedPostgresError("stopping the standby's stream in synchronous mode would stop every commit on the primary")
        }
        try await waitForStandbyReplay()
        let (primary, standby) = servers.withLock { ($0.primary, 1 - $0.primary) }
        try await withAdmin(slot: standby) { client in
            try await client.execute("ALTER SYSTEM SET primary_conninfo = ''")
            try await client.execute("SELECT pg_reload_conf()")
        }
        try await withAdmin(slot: primary) { client in
            _ = try await waitFor("the standby to stop streaming") { try await client.query("SELECT 1 FROM pg_stat_replication").isEmpty }
        }
        logger.info("standby stream stopped", ["slot": slotDirectory(standby)])
    }

    /// Makes a new standby of the current primary in the other slot (whose server must be
    /// gone: killed by ``killPrimary()``), and waits until it streams.
    public func rebuildStandby() async throws {
        let slot = servers.withLock { 1 - $0.primary }
        try? FileManager.default.removeItem(atPath: slotDirectory(slot) + "/postgres")
        try await makeStandby(slot: slot)
    }

    /// Fast shutdown of the primary, then started again on its directory after `downtime`;
    /// the standby streams from it again by itself.
    public func restartPrimary(downtime: Duration = .zero) async throws {
        let (slot, running) = servers.withLock { servers in
            defer { servers.slots[servers.primary] = nil }
            return (servers.primary, servers.slots[servers.primary])
        }
        await running?.stop()
        if downtime > .zero { try? await Task.sleep(for: downtime) }
        let restarted = try await EmbeddedPostgres.start(configuration(slot: slot), logger: logger)
        servers.withLock { $0.slots[slot] = restarted }
    }

    /// Stops both servers (fast shutdown).
    public func stop() async {
        let running = servers.withLock { servers -> [EmbeddedPostgres] in
            defer { servers.slots = [nil, nil] }
            return servers.slots.compactMap { $0 }
        }
        for server in running { await server.stop() }
    }

    /// The last lines of each server's log.
    public func tail(_ lines: Int) -> String {
        (0...1).map { slot in
            let text = (try? String(contentsOfFile: slotDirectory(slot) + "/postgres.log", encoding: .utf8)) ?? ""
            return "-- \(slotDirectory(slot)) --\n" + text.split(separator: "\n").suffix(lines).joined(separator: "\n")
        }.joined(separator: "\n")
    }

    // MARK: steps

    private func configuration(slot: Int) -> EmbeddedPostgresConfiguration {
        var configuration = EmbeddedPostgresConfiguration(dataDirectory: slotDirectory(slot))
        configuration.durable = false
        configuration.maximumConnections = 200
        configuration.databaseName = databaseName
        // The commit rule is the replication's, not the throwaway server's `off`; a base
        // backup wants full page writes.
        configuration.settings = [
            "synchronous_commit": "on", "full_page_writes": "on", "wal_keep_size": "256MB",
            // A standby whose primary died retries its stream this often; a promotion waits for
            // the current wait to end (the default is 5 s).
            "wal_retrieve_retry_interval": "100ms",
        ]
        return configuration
    }

    /// `pg_basebackup -R` from the primary into `slot`, the standby started, then waits until
    /// it streams (and, synchronous, until the primary counts it as its synchronous standby).
    private func makeStandby(slot: Int) async throws {
        let primarySlot = servers.withLock { $0.primary }
        let slotPath = slotDirectory(slot)
        try FileManager.default.createDirectory(atPath: slotPath, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let user = geteuid() == 0 ? ChildProcess.User.named("postgres") : nil
        if let user { chown(slotPath, user.uid, user.gid) }
        let logPath = slotPath + "/basebackup.log"
        let logFD = open(logPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        defer { if logFD >= 0 { close(logFD) } }
        let backup = try await ChildProcess.spawn(
            try Self.binary("pg_basebackup"),
            [
                "-D", slotPath + "/postgres", "-d", "host='\(slotDirectory(primarySlot))' port=5432 user=\(EmbeddedPostgres.superuser)",
                "-X", "stream", "-R", "--checkpoint=fast", "--no-sync",
            ],
            environment: ["PATH=/usr/bin:/bin", "LC_ALL=C"], output: logFD, user: user, parentDeathSignal: SIGKILL
        )
        let status = await backup.wait(timeout: .seconds(120))
        guard status == 0 else {
            if status == nil { backup.signal(SIGKILL) }
            let log = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
            throw ReplicatedPostgresError("pg_basebackup into \(slotPath) failed (status \(status.map(String.init) ?? "timeout")): \(log)")
        }
        // The copy carries the primary's ALTER SYSTEM settings: a standby that is promoted
        // starts without a synchronous standby of its own.
        let autoConf = slotPath + "/postgres/postgresql.auto.conf"
        let settings = (try? String(contentsOfFile: autoConf, encoding: .utf8)) ?? ""
        let kept = settings.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.hasPrefix("synchronous_standby_names") }
        try kept.joined(separator: "\n").write(toFile: autoConf, atomically: false, encoding: .utf8)

        let standby = try await EmbeddedPostgres.start(configuration(slot: slot), logger: logger)
        servers.withLock { $0.slots[slot] = standby }
        try await withAdmin(slot: primarySlot) { client in
            let streaming = try await waitFor("the standby in \(slotPath) to stream") {
                try await client.query("SELECT 1 FROM pg_stat_replication WHERE state = 'streaming'").count > 0
            }
            guard streaming, replication == .synchronous else { return }
            try await client.execute("ALTER SYSTEM SET synchronous_standby_names = '*'")
            try await client.execute("SELECT pg_reload_conf()")
            _ = try await waitFor("the primary to count \(slotPath) as its synchronous standby") {
                try await client.query("SELECT 1 FROM pg_stat_replication WHERE sync_state = 'sync'").count > 0
            }
        }
        logger.info("standby streaming", ["slot": slotPath, "replication": replication.rawValue])
    }

    private func waitFor(_ what: String, _ condition: () async throws -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            if try await condition() { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        throw ReplicatedPostgresError("waited 60 s for \(what): \(tail(10))")
    }

    private func withAdmin(slot: Int, _ body: (PostgresClient) async throws -> Void) async throws {
        var configuration = PostgresConfiguration(connectionString: connectionString(slot: slot, database: "postgres"))
        configuration.maximumConnections = 1
        let client = try PostgresClient(configuration: configuration, logger: logger)
        do {
            try await body(client)
        } catch {
            await client.shutdown()
            throw error
        }
        await client.shutdown()
    }

    /// A PostgreSQL client program of the installed server's version.
    private static func binary(_ name: String) throws -> String {
        let root = "/usr/lib/postgresql"
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []).compactMap { Int($0) }.sorted(by: >)
        for version in versions where FileManager.default.isExecutableFile(atPath: "\(root)/\(version)/bin/\(name)") {
            return "\(root)/\(version)/bin/\(name)"
        }
        throw ReplicatedPostgresError("cannot find \(name) under \(root)/*/bin; install the postgresql package")
    }
}

/// The replicated pair could not be set up or failed over.
public struct ReplicatedPostgresError: Error, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}
