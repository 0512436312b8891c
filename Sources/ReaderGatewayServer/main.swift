import Foundation
import GatewayCore

let parser = OptionsParser(
    program: "reader-gateway",
    summary: "a self-hosted gateway for fleets of smart card readers",
    environmentPrefix: "READER_GATEWAY",
    options: [
        .value("log-level", "LEVEL", default: "info", help: "Lowest level written: trace, debug, info, notice, warning, error, critical."),
        .value("log-format", "FORMAT", default: "logfmt", help: "Log line format: logfmt or json."),
    ]
)

do {
    let options = try parser.parse(arguments: Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment)
    if options.helpRequested {
        print(parser.helpText(), terminator: "")
        exit(0)
    }
    let format = try options.choice("log-format", as: LogFormat.self) ?? .logfmt
    guard let level = Logger.Level(name: options.string("log-level") ?? "info") else {
        throw OptionsError("reader-gateway: --log-level \(options.string("log-level") ?? "") is not valid: expected one of trace, debug, info, notice, warning, error, critical")
    }
    LoggingSystem.shared.bootstrap(level: level, format: format)
    Logger(component: "main").info("reader-gateway starting")
} catch {
    FileHandle.standardError.write(Data(("\(error)\n").utf8))
    exit(OptionsError.exitCode)
}
