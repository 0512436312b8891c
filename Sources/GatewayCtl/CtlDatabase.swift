import GatewayCommandLine
import GatewayCore
import GatewayPostgres

/// The commands that talk to PostgreSQL directly (`accounts create`, `nodes`).
enum CtlDatabase {
    /// A client for `databaseURL` and the URL as messages may show it (no password); nil, with
    /// the reason printed, when the URL cannot be used (the command then exits with its usage code).
    static func client(_ databaseURL: String) -> (client: PostgresClient, shown: String)? {
        let configuration = PostgresConfiguration(connectionString: databaseURL)
        do {
            return (try PostgresClient(configuration: configuration, logger: Logger(component: "gatewayctl")), configuration.redactedDescription)
        } catch {
            CtlOutput.fail("cannot use the database URL \(configuration.redactedDescription): \(error)")
            return nil
        }
    }

    /// Prints why `doing` failed and returns the exit code: a database without `table` has not
    /// been migrated yet (say how to migrate it), anything else is the database being unreachable.
    static func failed(_ error: any Error, doing: String, table: String, in shown: String) -> ExitCode {
        let text = "\(error)"
        if text.contains("42P01") || text.contains("does not exist") {
            CtlOutput.fail("the database has no \(table); start reader-gateway once with this --database-url to apply its migrations (\(error))")
            return .dataError
        }
        CtlOutput.fail("could not \(doing) in \(shown): \(error)")
        return .unavailable
    }
}
