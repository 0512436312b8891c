import Foundation
import GatewayCore
import GatewayRepositories
import GatewayTransport

// Signals first: from here on SIGINT and SIGTERM start a graceful shutdown instead of
// ending the process.
guard let signals = SignalWaiter.install() else {
    FileHandle.standardError.write(Data("reader-gateway: cannot set up signal handling\n".utf8))
    exit(1)
}

// `--version`: the release and the newest schema this binary knows, then exit.
if CommandLine.arguments.dropFirst().contains("--version") {
    print("reader-gateway \(GatewayVersion.current) (schema \(Migrations.latestVersion))")
    exit(0)
}

let options: ServerOptions
do {
    options = try ServerOptions.parse(arguments: Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment)
} catch {
    FileHandle.standardError.write(Data("\(error)\n".utf8))
    exit(OptionsError.exitCode)
}
if options.helpRequested {
    print(ServerOptions.parser.helpText(), terminator: "")
    exit(0)
}
LoggingSystem.shared.bootstrap(level: options.logLevel, format: options.logFormat)
exit(await GatewayServer(options: options).run(signals: signals))
