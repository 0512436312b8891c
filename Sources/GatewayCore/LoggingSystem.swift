import Foundation
import Synchronization

/// The process-wide log configuration and output.
///
/// Executables call ``bootstrap(level:format:)`` once at start; records are
/// written whole, one `write(2)` per line under a lock, so lines from many
/// threads never interleave.
public final class LoggingSystem: Sendable {
    /// Where formatted lines go.
    public enum Destination: Sendable {
        /// The process's standard error.
        case standardError
    }

    struct State {
        var level: Logger.Level = .info
        var format: LogFormat = .logfmt
        var destination: Destination = .standardError
        /// Where lines are also kept, whatever the destination (see ``startCapturing(_:)``).
        var captures: [ObjectIdentifier: LogCapture] = [:]
    }

    public static let shared = LoggingSystem()

    private let state = Mutex(State())
    /// The minimum level, duplicated in an atomic so disabled records cost one load.
    private let minimumLevel = Atomic<Int>(Logger.Level.info.rawValue)

    public func bootstrap(level: Logger.Level, format: LogFormat, destination: Destination = .standardError) {
        state.withLock {
            $0.level = level
            $0.format = format
            $0.destination = destination
        }
        minimumLevel.store(level.rawValue, ordering: .relaxed)
    }

    /// Also keeps every line written from now on in `capture`, until ``stopCapturing(_:)``,
    /// whatever ``bootstrap(level:format:destination:)`` sets meanwhile: a test asserts on
    /// what was logged without taking the process's output from the tests running beside it.
    public func startCapturing(_ capture: LogCapture) {
        state.withLock { $0.captures[ObjectIdentifier(capture)] = capture }
    }

    /// Stops keeping lines in `capture`.
    public func stopCapturing(_ capture: LogCapture) {
        _ = state.withLock { $0.captures.removeValue(forKey: ObjectIdentifier(capture)) }
    }

    func isEnabled(_ level: Logger.Level) -> Bool {
        level.rawValue >= minimumLevel.load(ordering: .relaxed)
    }

    func write(_ record: LogRecord) {
        state.withLock { state in
            let line = state.format.format(record)
            switch state.destination {
            case .standardError:
                var bytes = Array(line.utf8)
                var offset = 0
                while offset < bytes.count {
                    let written = bytes.withUnsafeMutableBytes { buffer in
                        Foundation.write(2, buffer.baseAddress! + offset, buffer.count - offset)
                    }
                    if written < 0 {
                        if errno == EINTR { continue }
                        return
                    }
                    offset += written
                }
                bytes.removeAll()
            }
            for capture in state.captures.values { capture.append(line) }
        }
    }
}

/// Log lines kept in memory, for tests.
public final class LogCapture: Sendable {
    private let lines = Mutex<[String]>([])

    public init() {}

    func append(_ line: String) { lines.withLock { $0.append(line) } }

    /// Every line written so far, each ending in a newline.
    public var all: [String] { lines.withLock { $0 } }
}
