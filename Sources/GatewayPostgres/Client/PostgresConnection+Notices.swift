import CGatewayPostgres
import GatewayCore

/// The logger a connection's notice receiver writes to (retained by the connection).
final class NoticeContext {
    let logger: Logger
    init(logger: Logger) { self.logger = logger }
}

/// libpq calls this for every NOTICE, WARNING, INFO or DEBUG message the
/// server sends; it becomes one log record at the matching level.
let postgresNoticeReceiver: PQnoticeReceiver = { argument, result in
    guard let argument, let result else { return }
    let context = Unmanaged<NoticeContext>.fromOpaque(argument).takeUnretainedValue()
    let severity = rg_pq_severity(result).map { String(cString: $0) } ?? "NOTICE"
    let level: Logger.Level
    switch severity {
    case "WARNING": level = .warning
    case "NOTICE": level = .notice
    case "INFO", "LOG": level = .info
    default: level = .debug
    }
    let message = rg_pq_message_primary(result).map { String(cString: $0) } ?? ""
    let sqlState = rg_pq_sqlstate(result).map { String(cString: $0) } ?? ""
    context.logger.log(level, "postgres: \(message)", ["severity": severity, "sqlstate": sqlState])
}
