import Foundation
import GatewayPostgres
import GatewayRepositories
import GatewayTestSupport
import Synchronization

/// One `reader-gateway` replica: fixed ports (so the load balancer's configuration and the
/// clients pinned to it stay valid across restarts), one log file per incarnation, and the
/// faults: kill -9, SIGSTOP/SIGCONT, SIGTERM (drain) and start again.
final class Replica: Sendable {
    let name: String
    let port: Int
    let internalPort: Int
    let opsPort: Int
    let directory: String
    private let arguments: [String]

    private struct State {
        /// The `reader-gateway` executable the next incarnation runs (nil: this package's).
        var binary: String?
        var process: LoggedProcess?
        var incarnation = 0
        var paused = false
        var logs: [String] = []
        var nodeIDs: [String] = []
    }
    private let state = Mutex(State())

    init(name: String, ports: (port: Int, internal: Int, ops: Int), directory: String, arguments: [String], binary: String? = nil) {
        state.withLock { $0.binary = binary }
        self.name = name
        port = ports.port
        internalPort = ports.internal
        opsPort = ports.ops
        self.directory = directory
        self.arguments = arguments
    }

    var process: LoggedProcess? { state.withLock { $0.process } }
    /// The executable the next ``start(timeout:)`` runs: another release's `reader-gateway`
    /// (an upgrade or rollback), or nil for this package's.
    var binary: String? {
        get { state.withLock { $0.binary } }
        set { state.withLock { $0.binary = newValue } }
    }
    var isRunning: Bool { process.map { $0.process.poll() == nil } ?? false }
    var isPaused: Bool { state.withLock { $0.paused } }
    var pid: pid_t? { process?.process.pid }
    /// The node id of the current incarnation (from its `node registered` line), if logged.
    var nodeID: String? { state.withLock { $0.nodeIDs.last } }
    /// Every node id this replica registered under, oldest first.
    var nodeIDs: [String] { state.withLock { $0.nodeIDs } }

    /// Starts a new incarnation and waits until it logs that it is ready.
    func start(timeout: Duration = .seconds(60)) async throws {
        let logPath = state.withLock { state -> String in
            state.incarnation += 1
            let path = "\(directory)/\(name)-\(state.incarnation).log"
            state.logs.append(path)
            return path
        }
        let executable = binary ?? PackageExecutables.path("reader-gateway")
        let child = try await LoggedProcess.start(executable, arguments, logPath: logPath)
        state.withLock {
            $0.process = child
            $0.paused = false
        }
        guard await child.waitForLine(containing: "msg=ready", timeout: timeout) != nil else {
            child.process.signal(SIGKILL)
            _ = await child.process.wait(timeout: .seconds(5))
            throw ClusterError("replica \(name) did not become ready within \(timeout):\n\(child.tail(30))")
        }
        // The incarnation's node id: `node registered node=...` or `gateway listening ... node=...`.
        for text in ["node registered", "gateway listening"] {
            if let line = await child.waitForLine(containing: text, timeout: .milliseconds(1)),
               let node = LoggedProcess.field("node", in: line) {
                state.withLock { $0.nodeIDs.append(node) }
                break
            }
        }
    }

    /// Whether `/readyz` on the ops port answers 200 now with nothing degraded (during a store
    /// outage it answers 200 `ready, degraded`: in the Service, but not "ready again").
    func isReady() async -> Bool {
        let port = opsPort
        return await Task.detached {
            guard let answer = Loopback.httpGet(port: port, path: "/readyz") else { return false }
            return answer.status == 200 && answer.body.hasPrefix("ready\n")
        }.value
    }

    /// SIGKILL, waited for.
    func kill9() async {
        guard let child = process else { return }
        child.process.signal(SIGCONT)
        child.process.signal(SIGKILL)
        _ = await child.process.wait(timeout: .seconds(10))
        state.withLock { $0.paused = false }
    }

    /// SIGSTOP: the process stops dead, its sockets stay open.
    func pause() {
        guard let child = process else { return }
        child.process.signal(SIGSTOP)
        state.withLock { $0.paused = true }
    }

    /// SIGCONT.
    func resume() {
        guard let child = process else { return }
        child.process.signal(SIGCONT)
        state.withLock { $0.paused = false }
    }

    /// SIGTERM (the drain) and waits for the exit; returns the status (nil: still running,
    /// then killed).
    @discardableResult
    func terminate(timeout: Duration = .seconds(40)) async -> Int32? {
        guard let child = process else { return nil }
        child.process.signal(SIGCONT)
        child.process.signal(SIGTERM)
        if let status = await child.process.wait(timeout: timeout) { return status }
        child.process.signal(SIGKILL)
        _ = await child.process.wait(timeout: .seconds(5))
        return nil
    }

    /// Kills whatever runs, without waiting long (cleanup).
    func destroy() async {
        guard let child = process else { return }
        child.process.signal(SIGCONT)
        child.process.signal(SIGKILL)
        _ = await child.process.wait(timeout: .seconds(5))
    }

    /// The current incarnation's log.
    var output: String { process?.output ?? "" }

    /// Every log line of every incarnation containing `text`.
    func lines(containing text: String) -> [String] {
        let paths = state.withLock { $0.logs }
        return paths.flatMap { path in
            ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").split(separator: "\n").filter { $0.contains(text) }.map(String.init)
        }
    }

    /// The last lines of every incarnation's log, for a failure report.
    func tails(_ lines: Int) -> String {
        let paths = state.withLock { $0.logs }
        return paths.map { path in
            let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
            let tail = text.split(separator: "\n", omittingEmptySubsequences: false).suffix(lines).joined(separator: "\n")
            return "---- \((path as NSString).lastPathComponent) ----\n\(tail)"
        }.joined(separator: "\n")
    }
}
