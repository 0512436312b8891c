import GatewayCore
import GatewayPostgres

extension Migrator {
    /// A migrator for the gateway's schema: every migration this binary knows (``Migrations/all``).
    public init(client: PostgresClient, logger: Logger) {
        self.init(client: client, migrations: Migrations.all, release: .current, logger: logger)
    }
}
