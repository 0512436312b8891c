import Foundation
import GatewayStore
import GatewayTestSupport

/// A child process of this package (reader-gateway, reader-sim) whose output goes to a file.
struct PackageProcess {
    let process: ChildProcess
    let outputPath: String

    /// The built executable `name`.
    static func executable(_ name: String) -> String { PackageExecutables.path(name) }

    static func start(_ name: String, _ arguments: [String], outputPath: String, environment: [String] = []) async throws -> PackageProcess {
        let output = open(outputPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        defer { close(output) }
        let process = try await ChildProcess.spawn(
            executable(name), arguments, environment: ["PATH=/usr/bin:/bin"] + environment, output: output, parentDeathSignal: SIGKILL
        )
        return PackageProcess(process: process, outputPath: outputPath)
    }

    var output: String { (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "" }

    /// The first line containing `text`, waiting for it (nil when the process exited or `timeout` passed).
    func waitForLine(containing text: String, timeout: Duration = .seconds(30)) async -> String? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let line = output.split(separator: "\n").first(where: { $0.contains(text) }) { return String(line) }
            if process.poll() != nil { break }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return output.split(separator: "\n").first(where: { $0.contains(text) }).map(String.init)
    }

    /// The value of `key=value` in `line`.
    static func field(_ key: String, in line: String) -> String? {
        for part in line.split(separator: " ") where part.hasPrefix(key + "=") {
            return String(part.dropFirst(key.count + 1)).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
        }
        return nil
    }

    func stop() async -> Int32? {
        process.signal(SIGINT)
        if let status = await process.wait(timeout: .seconds(15)) { return status }
        process.signal(SIGKILL)
        return await process.wait(timeout: .seconds(5))
    }
}
