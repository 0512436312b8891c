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
}
