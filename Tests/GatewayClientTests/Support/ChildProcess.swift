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
        try process.run()
        // Each pipe is drained by a blocking read loop on a thread of its own, never through
        // `readabilityHandler`: tearing down the read source that installs races the
        // descriptor's close inside libdispatch on Linux and can crash the whole test process
        // (in `_dispatch_event_loop_drain`, on a freed epoll note).
        let collector = self.collector
        Self.drain(output.fileHandleForReading, name: "child-stdout") { text in
            collector.partial.withLock { buffer in
                buffer += text
                while let newline = buffer.firstIndex(of: "\n") {
                    let line = String(buffer[..<newline])
                    buffer = String(buffer[buffer.index(after: newline)...])
                    collector.lines.withLock { $0.append(line) }
                }
            }
        } finished: {
            collector.closedPipes.withLock { $0 += 1 }
        }
        Self.drain(errors.fileHandleForReading, name: "child-stderr") { text in
            collector.errorText.withLock { $0 += text }
        } finished: {
            collector.closedPipes.withLock { $0 += 1 }
        }
    }

    /// Reads `handle` until end of file on a thread of its own, handing each chunk to `chunk`.
    private static func drain(
        _ handle: FileHandle, name: String, chunk: @escaping @Sendable (String) -> Void, finished: @escaping @Sendable () -> Void
    ) {
        let descriptor = handle.fileDescriptor
        let thread = Thread {
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = read(descriptor, &buffer, buffer.count)
                if count < 0, errno == EINTR { continue }
                if count <= 0 { break }
                chunk(String(decoding: buffer[0..<count], as: UTF8.self))
            }
            finished()
            withExtendedLifetime(handle) {}
        }
        thread.name = name
        thread.start()
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
