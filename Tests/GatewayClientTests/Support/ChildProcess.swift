import Foundation
import Synchronization

/// A built executable of this package run as a child process, with its stdout collected
/// line by line and its stdin writable.
final class ChildProcess: Sendable {
    let process: Process
    private let input: Pipe
    private let collector = Collector()

    /// Output collected from the pipes' handler threads.
    final class Collector: Sendable {
        let lines = Mutex<[String]>([])
        let partial = Mutex<String>("")
        let errorText = Mutex<String>("")
        /// Pipes that reached end of file (2 = stdout and stderr both drained).
        let closedPipes = Mutex(0)
    }

    /// The directory holding the package's built products (next to the test bundle).
    static var productsDirectory: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    }

    /// Starts `product` (e.g. "reader-sim") with `arguments`.
    init(_ product: String, _ arguments: [String], environment: [String: String] = [:]) throws {
        let url = Self.productsDirectory.appendingPathComponent(product)
        guard FileManager.default.isExecutableFile(atPath: url.path) else {
            throw Missing(description: "\(url.path) is not built; run `swift build` before the tests")
        }
        process = Process()
        process.executableURL = url
        process.arguments = arguments
        var merged = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("GATEWAYCTL_") && !$0.key.hasPrefix("READER_SIM_") }
        merged.merge(environment) { $1 }
        process.environment = merged
        input = Pipe()
        let output = Pipe()
        let errors = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        let collector = self.collector
        output.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            guard !data.isEmpty else {
                handle.readabilityHandler = nil
                collector.closedPipes.withLock { $0 += 1 }
                return
            }
            let text = String(decoding: data, as: UTF8.self)
            collector.partial.withLock { buffer in
                buffer += text
                while let newline = buffer.firstIndex(of: "\n") {
                    let line = String(buffer[..<newline])
                    buffer = String(buffer[buffer.index(after: newline)...])
                    collector.lines.withLock { $0.append(line) }
                }
            }
        }
        errors.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            guard !data.isEmpty else {
                handle.readabilityHandler = nil
                collector.closedPipes.withLock { $0 += 1 }
                return
            }
            collector.errorText.withLock { $0 += String(decoding: data, as: UTF8.self) }
        }
        try process.run()
    }

    struct Missing: Error, CustomStringConvertible { var description: String }

    var output: [String] { collector.lines.withLock { $0 } }
    var standardError: String { collector.errorText.withLock { $0 } }

    /// Writes one line to the child's stdin.
    func send(_ line: String) {
        input.fileHandleForWriting.write(Data((line + "\n").utf8))
    }

    /// Waits for a stdout line matching `predicate` (bounded by `timeout`).
    func waitForLine(timeout: Duration = .seconds(10), where predicate: (String) -> Bool) async -> String? {
        let deadline = ContinuousClock.now + timeout
        for _ in 0..<100_000 {
            if let line = output.first(where: predicate) { return line }
            if ContinuousClock.now >= deadline { return nil }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return nil
    }

    /// Waits for the exit status and the end of its output (bounded); nil if still running.
    func waitForExit(timeout: Duration = .seconds(10)) async -> Int32? {
        let deadline = ContinuousClock.now + timeout
        while (process.isRunning || collector.closedPipes.withLock({ $0 }) < 2) && ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(5))
        }
        return process.isRunning ? nil : process.terminationStatus
    }

    func terminate() {
        if process.isRunning { process.terminate() }
    }

    deinit { terminate() }
}
