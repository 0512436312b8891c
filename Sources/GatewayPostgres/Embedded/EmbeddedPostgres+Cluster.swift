import CGatewayLinux
import Foundation
import GatewayCore

/// Creating the cluster, finding the binaries, dealing with what a crash left.
extension EmbeddedPostgres {
    struct Binaries {
        var initdb: String
        var postgres: String
    }

    static let childEnvironment = ["PATH=/usr/bin:/bin", "LC_ALL=C", "LANG=C"]

    static func prepareDirectory(_ directory: String, owner: ChildProcess.User?) throws(StoreError) {
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw StoreError(.embeddedServerFailed, "cannot create the data directory \(directory); choose another with --data-dir", underlying: "\(error)")
        }
        let socket = directory + "/.s.PGSQL.5432"
        guard socket.utf8.count < 108 else {
            throw StoreError(
                .invalidConfiguration,
                "the data directory path \(directory) is too long for a Unix socket path (\(socket.utf8.count) of 107 bytes); choose a shorter --data-dir"
            )
        }
        if let owner, chown(directory, owner.uid, owner.gid) != 0 {
            throw StoreError(.embeddedServerFailed, "cannot hand \(directory) to the \(owner.name) account", underlying: String(cString: strerror(errno)))
        }
        _ = chmod(directory, 0o700)
    }

    /// As root, checks that the `postgres` account can reach the data directory
    /// (every parent directory must let it through).
    static func checkAccess(_ directory: String, user: ChildProcess.User?) async throws(StoreError) {
        guard let user else { return }
        let child = try await ChildProcess.spawn("/usr/bin/test", ["-w", directory, "-a", "-x", directory], environment: childEnvironment, user: user)
        guard await child.wait(timeout: .seconds(10)) == 0 else {
            throw StoreError(
                .embeddedServerFailed,
                "the \(user.name) account cannot write to \(directory) (a parent directory is private?); choose a --data-dir it can reach, such as one under /var/lib or /tmp"
            )
        }
    }

    static func findBinaries(_ configured: String?) async throws(StoreError) -> Binaries {
        var candidates: [String] = []
        if let configured { candidates.append(configured) }
        if configured == nil {
            if let output = await ChildProcess.runCapturingOutput("/usr/bin/pg_config", ["--bindir"]), output.status == 0 {
                candidates.append(output.output.trimmingCharacters(in: .whitespacesAndNewlines))
            }
            let root = "/usr/lib/postgresql"
            let versions = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? [])
                .compactMap { Int($0) }.sorted(by: >)
            candidates += versions.map { "\(root)/\($0)/bin" }
        }
        for directory in candidates {
            let initdb = directory + "/initdb"
            let postgres = directory + "/postgres"
            if FileManager.default.isExecutableFile(atPath: initdb), FileManager.default.isExecutableFile(atPath: postgres) {
                return Binaries(initdb: initdb, postgres: postgres)
            }
        }
        throw StoreError(
            .embeddedServerFailed,
            "cannot find the PostgreSQL server binaries (initdb, postgres) in \(candidates.isEmpty ? "pg_config --bindir or /usr/lib/postgresql/*/bin" : candidates.joined(separator: ", ")); install the postgresql package or give --database-url"
        )
    }

    static func createClusterIfNeeded(_ cluster: String, binaries: Binaries, user: ChildProcess.User?, durable: Bool, logger: Logger) async throws(StoreError) {
        if FileManager.default.fileExists(atPath: cluster + "/PG_VERSION") { return }
        // A cluster directory without PG_VERSION is a half-finished initdb: start over.
        try? FileManager.default.removeItem(atPath: cluster)
        logger.info("creating a new PostgreSQL cluster (first run)", ["cluster": cluster])
        let logPath = (cluster as NSString).deletingLastPathComponent + "/initdb.log"
        let logFD = open(logPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        defer { if logFD >= 0 { close(logFD) } }
        var arguments = [
            "-D", cluster, "-U", superuser, "--auth-local=trust", "--auth-host=reject",
            "-E", "UTF8", "--locale=C", "--no-instructions",
        ]
        if !durable { arguments.append("--no-sync") }
        let child = try await ChildProcess.spawn(binaries.initdb, arguments, environment: childEnvironment, output: logFD, user: user, parentDeathSignal: SIGKILL)
        let status = await child.wait(timeout: .seconds(120))
        guard status == 0 else {
            if status == nil { child.signal(SIGKILL) }
            try? FileManager.default.removeItem(atPath: cluster)
            throw StoreError(
                .embeddedServerFailed,
                "initdb failed (status \(status.map(String.init) ?? "timeout")); see \(logPath)",
                underlying: tail(of: logPath)
            )
        }
    }

    /// Handles `postmaster.pid` left behind: a dead pid is stale (removed); a
    /// live postmaster running in this cluster, while we hold the lock, was
    /// orphaned by a killed gateway (stopped).
    static func clearStalePostmaster(cluster: String, logger: Logger) async throws(StoreError) {
        let pidFile = cluster + "/postmaster.pid"
        guard let text = try? String(contentsOfFile: pidFile, encoding: .utf8) else { return }
        let pid = text.split(separator: "\n").first.flatMap { pid_t($0.trimmingCharacters(in: .whitespaces)) } ?? 0
        guard pid > 0, isPostmaster(pid, of: cluster) else {
            logger.notice("removing a stale postmaster.pid left by a crash", ["pid": pid])
            try? FileManager.default.removeItem(atPath: pidFile)
            return
        }
        logger.warning("an orphaned PostgreSQL from an earlier gateway is still running on this data directory; stopping it", ["pid": pid])
        // Not our child: its exit is heard through a pidfd, which turns readable when it exits.
        let exit = rg_pidfd_open(pid)
        guard exit >= 0 else {
            let reason = errno
            if reason == ESRCH || !isAlive(pid) { return }  // It is gone already.
            throw StoreError(
                .embeddedServerFailed, "cannot watch the orphaned PostgreSQL pid \(pid) on \(cluster) for its exit; stop it by hand",
                underlying: String(cString: strerror(reason))
            )
        }
        defer { close(exit) }
        let steps: [(Int32, Duration)] = [(SIGINT, .seconds(30)), (SIGQUIT, .seconds(10)), (SIGKILL, .seconds(10))]
        for (signal, timeout) in steps {
            kill(pid, signal)
            if await DescriptorWait.firstReadable([exit], until: .now + timeout) != nil || !isAlive(pid) { return }
        }
        throw StoreError(.embeddedServerFailed, "cannot stop the orphaned PostgreSQL pid \(pid) on \(cluster); stop it by hand")
    }

    /// Whether `pid` is a live (not zombie) postgres process whose working directory is `cluster`.
    static func isPostmaster(_ pid: pid_t, of cluster: String) -> Bool {
        guard isAlive(pid) else { return false }
        let cwd = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/cwd")
        let comm = (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
        let real = URL(fileURLWithPath: cluster).resolvingSymlinksInPath().path
        return comm.map { $0.hasPrefix("postgres") } == true && (cwd == cluster || cwd == real)
    }

    static func isAlive(_ pid: pid_t) -> Bool {
        guard rg_process_exists(pid) != 0 else { return false }
        // A zombie has exited; its parent has not reaped it yet.
        if let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
           let close = stat.lastIndex(of: ")") {
            let state = stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces).first
            if state == "Z" || state == "X" { return false }
        }
        return true
    }

    static func launch(_ configuration: EmbeddedPostgresConfiguration, dataDirectory: String, binaries: Binaries, user: ChildProcess.User?) async throws(StoreError) -> ChildProcess {
        var settings: [String: String] = [
            "listen_addresses": "",
            "unix_socket_directories": dataDirectory,
            "unix_socket_permissions": "0700",
            "max_connections": String(configuration.maximumConnections),
        ]
        if !configuration.durable {
            settings["fsync"] = "off"
            settings["synchronous_commit"] = "off"
            settings["full_page_writes"] = "off"
        }
        settings.merge(configuration.settings) { _, new in new }
        var arguments = ["-D", dataDirectory + "/postgres"]
        for (name, value) in settings.sorted(by: { $0.key < $1.key }) { arguments += ["-c", "\(name)=\(value)"] }
        let logPath = dataDirectory + "/postgres.log"
        let logFD = open(logPath, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        defer { if logFD >= 0 { close(logFD) } }
        return try await ChildProcess.spawn(binaries.postgres, arguments, environment: childEnvironment, output: logFD, user: user, parentDeathSignal: SIGINT)
    }
}
