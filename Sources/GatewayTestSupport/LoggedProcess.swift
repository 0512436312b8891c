import Foundation
import GatewayPostgres
import GatewayRepositories

/// A child process for tests (reader-gateway, reader-sim, nginx) whose output goes to a log
/// file the test reads: wait for a line, pick a `key=value` field, stop it, or run it to
/// completion. It is killed if the test process dies.
public struct LoggedProcess: Sendable {
    public let process: ChildProcess
    public let logPath: String

    /// The log file could not be opened.
    public struct LogFileError: Error, CustomStringConvertible {
        public var description: String
    }

    /// Starts `executable` (a path; `PackageExecutables.path(_:)` for this package's own)
    /// with its standard output and error in `logPath`.
    public static func start(_ executable: String, _ arguments: [String], logPath: String, environment: [String] = []) async throws -> LoggedProcess {
        let output = open(logPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard output >= 0 else { throw LogFileError(description: "cannot open \(logPath): \(String(cString: strerror(errno)))") }
        defer { close(output) }
        let process = try await ChildProcess.spawn(
            executable, arguments, environment: ["PATH=/usr/sbin:/usr/bin:/sbin:/bin"] + environment,
            output: output, parentDeathSignal: SIGKILL
        )
        return LoggedProcess(process: process, logPath: logPath)
    }

    /// Runs `executable` to completion (bounded) and returns its status and output.
    public static func run(_ executable: String, _ arguments: [String], logPath: String, timeout: Duration = .seconds(30)) async throws -> (status: Int32?, output: String) {
        let child = try await start(executable, arguments, logPath: logPath)
        let status = await child.process.wait(timeout: timeout)
        if status == nil {
            child.process.signal(SIGKILL)
            _ = await child.process.wait(timeout: .seconds(5))
        }
        return (status, child.output)
    }

    /// Everything the process wrote so far.
    public var output: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    /// The first line containing `text`, waiting for it (nil when the process exited or
    /// `timeout` passed without it).
    public func waitForLine(containing text: String, timeout: Duration = .seconds(30)) async -> String? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let line = output.split(separator: "\n").first(where: { $0.contains(text) }) { return String(line) }
            if process.poll() != nil { break }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return output.split(separator: "\n").first(where: { $0.contains(text) }).map(String.init)
    }

    /// The last `lines` lines of the log.
    public func tail(_ lines: Int) -> String {
        output.split(separator: "\n", omittingEmptySubsequences: false).suffix(lines).joined(separator: "\n")
    }

    /// The value of `key=value` in a logfmt line (quotes removed).
    public static func field(_ key: String, in line: String) -> String? {
        for part in line.split(separator: " ") where part.hasPrefix(key + "=") {
            return String(part.dropFirst(key.count + 1)).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
        }
        return nil
    }

    /// SIGINT, then SIGKILL if it has not exited within 15 s; its exit status.
    public func stop() async -> Int32? {
        process.signal(SIGINT)
        if let status = await process.wait(timeout: .seconds(15)) { return status }
        process.signal(SIGKILL)
        return await process.wait(timeout: .seconds(5))
    }
}
