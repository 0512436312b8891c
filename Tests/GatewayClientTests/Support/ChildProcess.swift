import Foundation
import GatewayPostgres
import GatewayTestKit
import Synchronization

/// A built executable of this package run as a child process, with its stdout collected
/// line by line and its stdin writable.
///
/// Started with the package's own spawn (fork and exec on one long-lived thread, the child
/// killed if the test process dies), not Foundation's `Process`: on this toolchain
/// `Process.run()` over-reads a `dirent` while it lists `/proc/self/fd` and crashes the test
/// process now and then (swift-corelibs-foundation pull request 5472).
final class ChildProcess: Sendable {
    private let child: GatewayPostgres.ChildProcess
    /// Our end of the child's standard input: a socket, so a write after the child exited
    /// fails with EPIPE (`MSG_NOSIGNAL`) instead of raising SIGPIPE in the test process.
    private let input: Int32
    private let collector = Collector()

    /// Output collected by the reading threads.
    final class Collector: Sendable {
        let lines = Mutex<[String]>([])
        let errorText = Mutex<String>("")
        /// Streams that reached end of file (2 = stdout and stderr both drained).
        let closedStreams = Mutex(0)
    }

    struct Failure: Error, CustomStringConvertible { var description: String }

    /// The directory holding the package's built products (next to the test bundle).
    static var productsDirectory: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    }

    /// Starts `product` (e.g. "reader-sim") with `arguments`; the test's environment is passed
    /// on without the programs' own `GATEWAYCTL_` / `READER_SIM_` settings, then `environment`.
    static func start(_ product: String, _ arguments: [String], environment: [String: String] = [:]) async throws -> ChildProcess {
        let path = productsDirectory.appendingPathComponent(product).path
        guard access(path, X_OK) == 0 else {
            throw Failure(description: "\(path) is not built; run `swift build` before the tests")
        }
        var merged = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("GATEWAYCTL_") && !$0.key.hasPrefix("READER_SIM_") }
        merged.merge(environment) { $1 }
        let stdin = try socketPair()
        let stdout = try pipe()
        let stderr = try pipe()
        let child: GatewayPostgres.ChildProcess
        do {
            child = try await GatewayPostgres.ChildProcess.spawn(
                path, arguments, environment: merged.map { "\($0.key)=\($0.value)" },
                input: stdin.child, output: stdout.write, errorOutput: stderr.write, parentDeathSignal: SIGKILL
            )
        } catch {
            for descriptor in [stdin.child, stdin.ours, stdout.read, stdout.write, stderr.read, stderr.write] { close(descriptor) }
            throw error
        }
        // The child has its copies; ours of its ends go, so end of file comes when it exits.
        close(stdin.child)
        close(stdout.write)
        close(stderr.write)
        return ChildProcess(child: child, input: stdin.ours, stdout: stdout.read, stderr: stderr.read)
    }

    private init(child: GatewayPostgres.ChildProcess, input: Int32, stdout: Int32, stderr: Int32) {
        self.child = child
        self.input = input
        let collector = self.collector
        let partial = Mutex<[UInt8]>([])
        Self.drain(stdout, name: "child-stdout") { bytes in
            partial.withLock { buffer in
                buffer += bytes
                while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = String(decoding: buffer[..<newline], as: UTF8.self)
                    buffer.removeSubrange(...newline)
                    collector.lines.withLock { $0.append(line) }
                }
            }
        } finished: {
            collector.closedStreams.withLock { $0 += 1 }
        }
        Self.drain(stderr, name: "child-stderr") { bytes in
            collector.errorText.withLock { $0 += String(decoding: bytes, as: UTF8.self) }
        } finished: {
            collector.closedStreams.withLock { $0 += 1 }
        }
    }

    /// Reads `descriptor` until end of file on a thread of its own (a blocking read never runs
    /// on the cooperative pool), handing each chunk to `chunk`, then closes it.
    private static func drain(
        _ descriptor: Int32, name: String, chunk: @escaping @Sendable ([UInt8]) -> Void, finished: @escaping @Sendable () -> Void
    ) {
        let thread = Thread {
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = read(descriptor, &buffer, buffer.count)
                if count < 0, errno == EINTR { continue }
                if count <= 0 { break }
                chunk(Array(buffer[0..<count]))
            }
            close(descriptor)
            finished()
        }
        thread.name = name
        thread.start()
    }

    private static func pipe() throws -> (read: Int32, write: Int32) {
        var descriptors: [Int32] = [-1, -1]
        guard Foundation.pipe(&descriptors) == 0 else { throw Failure(description: "pipe: \(String(cString: strerror(errno)))") }
        // Children of this package's spawn close every descriptor above 2 anyway.
        for descriptor in descriptors { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        return (descriptors[0], descriptors[1])
    }

    private static func socketPair() throws -> (ours: Int32, child: Int32) {
        var descriptors: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &descriptors) == 0 else {
            throw Failure(description: "socketpair: \(String(cString: strerror(errno)))")
        }
        return (descriptors[0], descriptors[1])
    }

    /// The child's process id.
    var pid: pid_t { child.pid }
    var output: [String] { collector.lines.withLock { $0 } }
    var standardError: String { collector.errorText.withLock { $0 } }

    /// Writes one line to the child's stdin (dropped once the child stopped reading it).
    func send(_ line: String) {
        let bytes = Array((line + "\n").utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Foundation.send(input, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if written < 0, errno == EINTR { continue }
            if written <= 0 { return }
            offset += written
        }
    }

    /// Waits for a stdout line matching `predicate`; nil once `timeout` (the suite's hang
    /// detector unless given) passed without one.
    func waitForLine(timeout: Duration = outcomeDeadline, where predicate: (String) -> Bool) async -> String? {
        var found: String?
        _ = await eventually(timeout: timeout) {
            found = output.first(where: predicate)
            return found != nil
        }
        return found
    }

    /// Waits for the exit status and the end of its output; nil if it still runs after
    /// `timeout` (the suite's hang detector unless given).
    func waitForExit(timeout: Duration = outcomeDeadline) async -> Int32? {
        let deadline = ContinuousClock.now + timeout
        guard let status = await child.wait(timeout: timeout) else { return nil }
        let drained = await eventually(timeout: max(.zero, deadline - ContinuousClock.now)) { collector.closedStreams.withLock { $0 } == 2 }
        return drained ? status : nil
    }

    /// SIGTERM, unless it has exited.
    func terminate() {
        signal(SIGTERM)
    }

    /// Sends `number` (SIGINT, SIGTERM, ...), unless it has exited.
    func signal(_ number: Int32) {
        child.signal(number)
    }

    deinit {
        terminate()
        close(input)
    }
}
