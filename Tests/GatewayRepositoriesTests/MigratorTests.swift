import GatewayCore
import GatewayPostgres
import GatewayRepositories
import GatewayTestSupport
import Testing

@Suite("Migrator")
struct MigratorTests {
    let logger = Logger(component: "migrations")

    @Test func concurrentReplicasApplyEachMigrationExactlyOnce() async throws {
        let database = try await TestPostgres.database(migrations: [])
        let clients = try (0..<4).map { _ in try database.makeClient(maximumConnections: 1) }
        let logger = self.logger
        let reports = try await withThrowingTaskGroup(of: Migrator.Report.self) { group in
            for client in clients {
                group.addTask { try await Migrator(client: client, logger: logger).migrate() }
            }
            var all: [Migrator.Report] = []
            for try await report in group { all.append(report) }
            return all
        }
        let everything = Migrations.all.map(\.version)
        #expect(reports.filter { $0.applied == everything }.count == 1)
        #expect(reports.filter { $0.applied.isEmpty }.count == clients.count - 1)
        #expect(reports.allSatisfy { $0.currentVersion == Migrations.latestVersion })
        let recorded = try await database.client.query("SELECT version FROM schema_migrations ORDER BY version")
        #expect(try recorded.map { try $0.decode(Int.self, "version") } == everything)
        for client in clients { await client.shutdown() }
        await database.close()
    }

    @Test func migrationsCreateTheSchema() async throws {
        try await TestPostgres.withDatabase { database in
            let rows = try await database.client.query(
                "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name"
            )
            let tables = try rows.map { try $0.decode(String.self, "table_name") }
            for table in ["accounts", "connection_tokens", "locations", "readers", "schema_migrations", "sdk_sessions"] {
                #expect(tables.contains(table))
            }
            let again = try await Migrator(client: database.client, logger: logger).migrate()
            #expect(again.applied.isEmpty)
        }
    }

    @Test func newerDatabaseIsRefused() async throws {
        try await TestPostgres.withDatabase { database in
            try await database.client.execute("INSERT INTO schema_migrations (version, name) VALUES (9999, 'from the future')")
            do throws(StoreError) {
                try await Migrator(client: database.client, logger: logger).migrate()
                Issue.record("a newer database was accepted")
            } catch {
                #expect(error.code == .databaseTooNew)
                #expect(error.message.contains("9999"))
            }
        }
    }

    @Test func failedMigrationRollsEverythingBack() async throws {
        try await TestPostgres.withDatabase(migrations: []) { database in
            let broken = Migration(version: 1000, name: "broken", compatibleFrom: GatewayVersion(0, 1, 0), statements: ["CREATE TABLE fine (a int)", "SELEC broken"])
            do throws(StoreError) {
                try await Migrator(client: database.client, migrations: Migrations.all + [broken], logger: logger).migrate()
                Issue.record("a broken migration succeeded")
            } catch {
                #expect(error.code == .migrationFailed)
                #expect(error.sqlState == "42601")
                #expect(error.message.contains("1000"))
            }
            let rows = try await database.client.query(
                "SELECT to_regclass('accounts') IS NULL AS a, to_regclass('fine') IS NULL AS b, to_regclass('schema_migrations') IS NULL AS c"
            )
            #expect(try rows[0].decode(Bool.self, "a"))
            #expect(try rows[0].decode(Bool.self, "b"))
            #expect(try rows[0].decode(Bool.self, "c"))
        }
    }
}
