import Foundation
import GatewayPostgres
import GatewayRepositories
import GatewayTestSupport

/// A `reader-gateway` child process whose output goes to a file.
struct GatewayProcess {
    let process: ChildProcess
    let outputPath: String

    /// The built executable.
    static var executable: String { PackageExecutables.path("reader-gateway") }

    static func start(_ arguments: [String], outputPath: String, environment: [String] = []) async throws -> GatewayProcess {
        let output = open(outputPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        defer { close(output) }
        let process = try await ChildProcess.spawn(
            executable, arguments,
            environment: ["PATH=/usr/bin:/bin", "READER_GATEWAY_INTERNAL_PORT=0"] + environment,
            output: output,
            parentDeathSignal: SIGKILL
        )
        return GatewayProcess(process: process, outputPath: outputPath)
    }

    var output: String { (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "" }

    /// Waits until a line containing `text` was written, or the process exited, or `timeout` passed.
    func waitForLine(containing text: String, timeout: Duration = .seconds(60)) async -> String? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let line = output.split(separator: "\n").first(where: { $0.contains(text) }) { return String(line) }
            if process.poll() != nil {
                return output.split(separator: "\n").first(where: { $0.contains(text) }).map(String.init)
            }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return nil
    }

    /// Runs the executable to completion and returns its status and output.
    static func run(_ arguments: [String], environment: [String] = [], timeout: Duration = .seconds(60)) async throws -> (status: Int32?, output: String) {
        let path = TestPostgres.makeTemporaryDirectory() + "/output.log"
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        let gateway = try await start(arguments, outputPath: path, environment: environment)
        let status = await gateway.process.wait(timeout: timeout)
        if status == nil { gateway.process.signal(SIGKILL) }
        return (status, gateway.output)
    }
}
