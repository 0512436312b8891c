import Foundation
import GatewayStore
import GatewayTestSupport

/// A child process of the cluster (a replica, nginx) whose output goes to a log file.
struct ClusterProcess: Sendable {
    let process: ChildProcess
    let logPath: String

    /// A built executable of this package.
    static func packageExecutable(_ name: String) -> String { PackageExecutables.path(name) }

    static func start(_ executable: String, _ arguments: [String], logPath: String, environment: [String] = []) async throws -> ClusterProcess {
        let output = open(logPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard output >= 0 else { throw ClusterError("cannot open \(logPath): \(String(cString: strerror(errno)))") }
        defer { close(output) }
        let process = try await ChildProcess.spawn(
            executable, arguments, environment: ["PATH=/usr/sbin:/usr/bin:/sbin:/bin"] + environment,
            output: output, parentDeathSignal: SIGKILL
        )
        return ClusterProcess(process: process, logPath: logPath)
    }

    /// Runs `executable` to completion (bounded) and returns its status and output.
    static func run(_ executable: String, _ arguments: [String], logPath: String, timeout: Duration = .seconds(30)) async throws -> (status: Int32?, output: String) {
        let child = try await start(executable, arguments, logPath: logPath)
        let status = await child.process.wait(timeout: timeout)
        if status == nil {
            child.process.signal(SIGKILL)
            _ = await child.process.wait(timeout: .seconds(5))
        }
        return (status, child.output)
    }

    var output: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    /// The first line containing `text`, waiting for it until the process exits or `timeout` passes.
    func waitForLine(containing text: String, timeout: Duration) async -> String? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let line = output.split(separator: "\n").first(where: { $0.contains(text) }) { return String(line) }
            if process.poll() != nil { break }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return output.split(separator: "\n").first(where: { $0.contains(text) }).map(String.init)
    }

    /// The last `lines` lines of the log.
    func tail(_ lines: Int) -> String {
        output.split(separator: "\n", omittingEmptySubsequences: false).suffix(lines).joined(separator: "\n")
    }

    /// The value of `key=value` in a logfmt line.
    static func field(_ key: String, in line: String) -> String? {
        for part in line.split(separator: " ") where part.hasPrefix(key + "=") {
            return String(part.dropFirst(key.count + 1)).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
        }
        return nil
    }
}

/// A failure of the cluster fixture itself (a process that did not start, a wait that ran out).
struct ClusterError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
