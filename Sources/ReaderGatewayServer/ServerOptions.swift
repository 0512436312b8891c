import Foundation
import GatewayCore
import GatewayOperations

/// Everything `reader-gateway` is configured with, from flags and
/// `READER_GATEWAY_*` environment variables (flags win).
struct ServerOptions: Sendable {
    static let parser = OptionsParser(
        program: "reader-gateway",
        summary: "a self-hosted gateway for fleets of smart card readers",
        environmentPrefix: "READER_GATEWAY",
        options: [
            .value("database-url", "URL", default: "", help: "PostgreSQL connection URL (postgresql://user:password@host/db). Empty: run an embedded PostgreSQL under --data-dir (a development default)."),
            .value("data-dir", "PATH", default: ".reader-gateway", help: "Directory of the embedded PostgreSQL (cluster, Unix socket, lock file). Unused with --database-url."),
            .value("postgres-bin-dir", "PATH", default: "", help: "Directory with initdb and postgres for the embedded server. Empty: pg_config --bindir, then /usr/lib/postgresql/*/bin."),
            .value("database-pool-size", "N", default: "8", help: "Most PostgreSQL connections the gateway opens for statements."),
            .value("node-id", "NAME", default: "", help: "This replica's name, recorded with the sessions it holds. Empty: the host name."),
            .value("ops-address", "ADDRESS", default: "127.0.0.1", help: "Address of the ops HTTP endpoint (/healthz, /readyz, /metrics): an IPv4 or IPv6 literal; 0.0.0.0 in a container."),
            .value("ops-port", "PORT", default: "", help: "Port of the ops HTTP endpoint (the container image sets 9090); 0 picks a free one (logged). Empty: no ops endpoint."),
            .value("drain-load-balancer-seconds", "SECONDS", default: "0", help: "On SIGTERM, seconds to keep serving while /readyz fails, so load balancers stop sending (the chart sets 5)."),
            .value("drain-deadline-seconds", "SECONDS", default: "20", help: "On SIGTERM, seconds in-flight commands may take after peers are told to go away."),
            .value("log-level", "LEVEL", default: "info", help: "Lowest level written: trace, debug, info, notice, warning, error, critical."),
            .value("log-format", "FORMAT", default: "logfmt", help: "Log line format: logfmt or json."),
        ]
    )

    var databaseURL: String?
    var dataDirectory: String
    var postgresBinDirectory: String?
    var databasePoolSize: Int
    var nodeID: String
    var opsAddress: String
    var opsPort: Int?
    var drain: DrainConfiguration
    var logLevel: Logger.Level
    var logFormat: LogFormat
    var helpRequested: Bool

    static func parse(arguments: [String], environment: [String: String]) throws(OptionsError) -> ServerOptions {
        let options = try parser.parse(arguments: arguments, environment: environment)
        if let extra = options.positional.first {
            throw OptionsError("reader-gateway: unexpected argument \(extra.debugDescription) (see reader-gateway --help)")
        }
        let levelName = options.string("log-level") ?? "info"
        guard let level = Logger.Level(name: levelName) else {
            throw OptionsError("reader-gateway: --log-level \(levelName.debugDescription) is not valid: expected one of trace, debug, info, notice, warning, error, critical")
        }
        return ServerOptions(
            databaseURL: options.string("database-url"),
            dataDirectory: options.string("data-dir") ?? ".reader-gateway",
            postgresBinDirectory: options.string("postgres-bin-dir"),
            databasePoolSize: try options.int("database-pool-size", in: 1...1000) ?? 8,
            nodeID: options.string("node-id") ?? (ProcessInfo.processInfo.hostName.isEmpty ? "node" : ProcessInfo.processInfo.hostName),
            opsAddress: options.string("ops-address") ?? "127.0.0.1",
            opsPort: try options.int("ops-port", in: 0...65535),
            drain: DrainConfiguration(
                loadBalancerWindow: try options.duration("drain-load-balancer-seconds") ?? .zero,
                inFlightDeadline: try options.duration("drain-deadline-seconds") ?? .seconds(20)
            ),
            logLevel: level,
            logFormat: try options.choice("log-format", as: LogFormat.self) ?? .logfmt,
            helpRequested: options.helpRequested
        )
    }
}
