import GatewayCommandLine
import Testing

/// `gatewayctl`'s command for a command line (a secret key in the environment).
func parseCtl(_ arguments: [String]) throws -> CtlCommand {
    try #require(try CtlInvocation.parse(arguments: arguments, environment: ["GATEWAYCTL_SECRET_KEY": "sk_test"])).command
}

/// Each command line is refused, with an error that contains its words.
func expectRefused(_ cases: [([String], String)], sourceLocation: SourceLocation = #_sourceLocation) {
    for (arguments, expected) in cases {
        do {
            _ = try parseCtl(arguments)
            Issue.record("\(arguments) parsed", sourceLocation: sourceLocation)
        } catch {
            #expect("\(error)".contains(expected), "\(arguments): \(error)", sourceLocation: sourceLocation)
        }
    }
}
