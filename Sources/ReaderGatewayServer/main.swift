import Foundation
import GatewayCore
import Synchronization

// Block SIGINT/SIGTERM before any thread exists; they are read from a signalfd.
// The main thread then only waits (no top-level await: dispatch_main would
// reset its signal mask).
guard let signals = SignalWaiter.install() else {
    FileHandle.standardError.write(Data("reader-gateway: cannot set up signal handling\n".utf8))
    exit(1)
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
let status = Mutex<Int32>(1)
let finished = DispatchSemaphore(value: 0)
Task.detached {
    let code = await GatewayServer(options: options).run(signals: signals)
    status.withLock { $0 = code }
    finished.signal()
}
finished.wait()
exit(status.withLock { $0 })
