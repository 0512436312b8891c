import Foundation

/// A structured logger: one line per record, with a level, a component and
/// key-value metadata (per-connection context goes in the metadata).
///
/// Loggers are cheap values. Derive a child with more context with
/// ``with(_:_:)``; the message is only built when the level is enabled.
///
/// A `Duration` value is written as its number of seconds (``Swift/Duration/secondsText``:
/// `seconds=0.001520692`, never `seconds="0.001520692 seconds"`); name such fields
/// `seconds` or `…_seconds`.
public struct Logger: Sendable {
    /// The severity of a record, lowest first.
    public enum Level: Int, Sendable, Comparable, CaseIterable, CustomStringConvertible {
        case trace, debug, info, notice, warning, error, critical

        public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }

        public var description: String {
            switch self {
            case .trace: "trace"
            case .debug: "debug"
            case .info: "info"
            case .notice: "notice"
            case .warning: "warning"
            case .error: "error"
            case .critical: "critical"
            }
        }

        /// Parses a level name as written by ``description``.
        public init?(name: String) {
            guard let level = Level.allCases.first(where: { $0.description == name.lowercased() }) else {
                return nil
            }
            self = level
        }
    }

    /// The subsystem that writes (for example `store`, `transport`, `ownership`).
    public let component: String
    /// Context carried by every record of this logger, in insertion order.
    public private(set) var metadata: [(key: String, value: String)]

    public init(component: String, metadata: [(key: String, value: String)] = []) {
        self.component = component
        self.metadata = metadata
    }

    /// A logger with one more key-value pair of context.
    public func with(_ key: String, _ value: CustomStringConvertible) -> Logger {
        var copy = self
        copy.metadata.append((key, Logger.text(of: value)))
        return copy
    }

    /// Whether records at `level` are written at all.
    public func isEnabled(_ level: Level) -> Bool { LoggingSystem.shared.isEnabled(level) }

    public func log(
        _ level: Level,
        _ message: @autoclosure () -> String,
        _ extra: KeyValuePairs<String, CustomStringConvertible> = [:]
    ) {
        guard isEnabled(level) else { return }
        LoggingSystem.shared.write(record(level, message(), extra))
    }

    /// The record ``log(_:_:_:)`` writes: this logger's context, then `extra`, each value
    /// rendered by ``text(of:)``.
    func record(_ level: Level, _ message: String, _ extra: KeyValuePairs<String, CustomStringConvertible>) -> LogRecord {
        var fields = metadata
        for (key, value) in extra { fields.append((key, Logger.text(of: value))) }
        return LogRecord(date: Date(), level: level, component: component, message: message, metadata: fields)
    }

    /// How a field's value is written: a `Duration` as a number of seconds, anything else
    /// by its description.
    static func text(of value: CustomStringConvertible) -> String {
        if let duration = value as? Duration { return duration.secondsText }
        return value.description
    }

    public func trace(_ message: @autoclosure () -> String, _ extra: KeyValuePairs<String, CustomStringConvertible> = [:]) {
        log(.trace, message(), extra)
    }
    public func debug(_ message: @autoclosure () -> String, _ extra: KeyValuePairs<String, CustomStringConvertible> = [:]) {
        log(.debug, message(), extra)
    }
    public func info(_ message: @autoclosure () -> String, _ extra: KeyValuePairs<String, CustomStringConvertible> = [:]) {
        log(.info, message(), extra)
    }
    public func notice(_ message: @autoclosure () -> String, _ extra: KeyValuePairs<String, CustomStringConvertible> = [:]) {
        log(.notice, message(), extra)
    }
    public func warning(_ message: @autoclosure () -> String, _ extra: KeyValuePairs<String, CustomStringConvertible> = [:]) {
        log(.warning, message(), extra)
    }
    public func error(_ message: @autoclosure () -> String, _ extra: KeyValuePairs<String, CustomStringConvertible> = [:]) {
        log(.error, message(), extra)
    }
    public func critical(_ message: @autoclosure () -> String, _ extra: KeyValuePairs<String, CustomStringConvertible> = [:]) {
        log(.critical, message(), extra)
    }
}

/// One log record, before formatting.
public struct LogRecord: Sendable {
    public var date: Date
    public var level: Logger.Level
    public var component: String
    public var message: String
    public var metadata: [(key: String, value: String)]
}
