import Foundation
import GatewayStore
import Synchronization

/// A child process of the cluster (a replica, nginx) whose output goes to a log file.
struct ClusterProcess: Sendable {
    let process: ChildProcess
    let logPath: String

    /// A built executable of this package, next to the test bundle.
    static func packageExecutable(_ name: String) -> String {
        let me = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var directory = (me as NSString).deletingLastPathComponent
        // The bundle may be a directory (…/X.xctest/…); climb out of it.
        while directory.contains(".xctest") { directory = (directory as NSString).deletingLastPathComponent }
        return directory + "/" + name
    }

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

/// Loopback ports and probes.
enum Loopback {
    /// A port that was free a moment ago on 127.0.0.1 (bound to 0, read back, closed).
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw ClusterError("socket: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress -> Int32 in
                guard bind(fd, socketAddress, length) == 0 else { return -1 }
                return getsockname(fd, socketAddress, &length)
            }
        }
        guard bound == 0 else { throw ClusterError("bind: \(String(cString: strerror(errno)))") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// `count` distinct free ports.
    static func freePorts(_ count: Int) throws -> [Int] {
        var ports: [Int] = []
        for _ in 0..<(count * 20) where ports.count < count {
            let port = try freePort()
            if !ports.contains(port) { ports.append(port) }
        }
        guard ports.count == count else { throw ClusterError("could not find \(count) free ports") }
        return ports
    }

    /// The status code of `GET path` on 127.0.0.1:`port` (nil: no answer within `timeout`).
    /// Blocking; run it off the cooperative pool for long timeouts.
    static func httpStatus(port: Int, path: String, timeout: Duration = .seconds(1)) -> Int? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        let millis = Int(timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
        var interval = timeval(tv_sec: millis / 1000, tv_usec: Int((millis % 1000) * 1000))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &interval, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &interval, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { return nil }
        let request = Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8)
        guard request.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == request.count else { return nil }
        var buffer = [UInt8](repeating: 0, count: 512)
        let count = recv(fd, &buffer, buffer.count, 0)
        guard count > 12 else { return nil }
        let head = String(decoding: buffer[0..<count], as: UTF8.self)
        let parts = head.split(separator: " ", maxSplits: 2)
        return parts.count >= 2 ? Int(parts[1]) : nil
    }
}

/// Waits until `condition` holds or `timeout` passes; polls every `interval`.
func eventually(
    timeout: Duration = .seconds(10), interval: Duration = .milliseconds(50), _ condition: () async throws -> Bool
) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while true {
        if (try? await condition()) == true { return true }
        if ContinuousClock.now >= deadline { return false }
        try? await Task.sleep(for: interval)
    }
}

/// Seconds of a duration, for printing.
func seconds(_ duration: Duration) -> String {
    let (whole, fraction) = duration.components
    return String(format: "%.2f s", Double(whole) + Double(fraction) / 1e18)
}

/// Runs `operation` and returns its result, or throws when it has not finished within
/// `limit` (the operation is cancelled and left behind: a call stuck on a peer that went away
/// must fail the test, never hang it).
@discardableResult
func withDeadline<T: Sendable>(_ limit: Duration, _ what: String, _ operation: @escaping @Sendable () async throws -> T) async throws -> T {
    let outcome = DeadlineOutcome<T>()
    return try await withCheckedThrowingContinuation { continuation in
        outcome.set(continuation)
        let work = Task {
            do {
                outcome.resume(with: .success(try await operation()))
            } catch {
                outcome.resume(with: .failure(error))
            }
        }
        Task {
            try? await Task.sleep(for: limit)
            work.cancel()
            outcome.resume(with: .failure(ClusterError("\(what) did not finish within \(limit)")))
        }
    }
}

/// The first of the operation and the timer resumes the continuation.
private final class DeadlineOutcome<T: Sendable>: Sendable {
    private let slot = Mutex<CheckedContinuation<T, any Error>?>(nil)
    func set(_ continuation: CheckedContinuation<T, any Error>) { slot.withLock { $0 = continuation } }
    func resume(with result: Result<T, any Error>) {
        slot.withLock { slot -> CheckedContinuation<T, any Error>? in
            defer { slot = nil }
            return slot
        }?.resume(with: result)
    }
}

/// The wall-clock time as the replicas' logs print it (UTC, milliseconds), to line a test's
/// observations up with the logs.
func wallClock() -> String {
    let now = Date().timeIntervalSince1970
    let day = Int(now) % 86_400
    return String(format: "%02d:%02d:%02d.%03dZ", day / 3600, day / 60 % 60, day % 60, Int((now - now.rounded(.down)) * 1000))
}
