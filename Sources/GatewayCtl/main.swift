import Foundation
import GatewayClient
import GatewayCommandLine
import GatewayCore
import GatewayTransport
import GatewayWireClients

// gatewayctl: the fleet admin CLI. Exit status: 0 ok, 64 usage, 65 bad input or not found,
// 69 unavailable, 70 internal, 77 secret key or permission.

let invocation: CtlInvocation
do {
    guard let parsed = try CtlInvocation.parse(arguments: Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment) else {
        print(CtlInvocation.helpText())
        exit(ExitCode.ok.rawValue)
    }
    invocation = parsed
} catch {
    CtlOutput.fail("\(error)".replacingOccurrences(of: "gatewayctl: ", with: ""))
    exit(ExitCode.usage.rawValue)
}

let output = CtlOutput(json: invocation.json)
if case .createAccount(let url, let name) = invocation.command {
    exit(await AccountCreation.run(databaseURL: url, name: name, output: output).rawValue)
}
if case .nodes(let url) = invocation.command {
    exit(await NodeListing.run(databaseURL: url, output: output).rawValue)
}

var configuration = ClientChannelConfiguration(
    host: invocation.gateway.host, port: invocation.gateway.port, serverName: invocation.serverName,
    trustedCAPath: invocation.caPath, keepalive: nil
)
configuration.connectTimeout = min(invocation.timeout, .seconds(10))
let connection = GatewayConnection(configuration)
let admin = AdminClient(connection: connection, secretKey: invocation.secretKey ?? "", timeout: invocation.timeout)
do {
    try await AdminCommands(admin: admin, output: output).run(invocation.command)
    connection.close()
    exit(ExitCode.ok.rawValue)
} catch let error as RPCError {
    CtlOutput.fail("\(error.message) (\(error.codeName) / \(error.reasonName))")
    exit(ExitCode(error).rawValue)
} catch let error as TransportError {
    CtlOutput.fail("\(error)")
    exit(error.code == .certificateFile || error.code == .configuration ? ExitCode.usage.rawValue : ExitCode.unavailable.rawValue)
} catch {
    CtlOutput.fail("\(error)")
    exit(ExitCode.software.rawValue)
}
