import Foundation
import GatewayCore
import GatewayPostgres
import GatewayRepositories
import GatewayTestSupport
import Testing

@Suite("reader-gateway as a process")
struct ReaderGatewayServerTests {
    @Test func helpListsEveryOption() async throws {
        let (status, output) = try await GatewayProcess.run(["--help"])
        #expect(status == 0)
        for option in ["--database-url", "--data-dir", "--postgres-bin-dir", "--database-pool-size", "--connect-batches-in-flight", "--node-name", "--internal-port", "--advertise-address", "--log-level", "--log-format", "--websocket-origins", "--release-buffers-after", "--auth-failures-per-source", "--auth-failures-per-account", "READER_GATEWAY_DATABASE_URL", "READER_GATEWAY_WEBSOCKET_ORIGINS",
                       "--webhook-ca-file", "--webhook-allow-private-addresses", "--webhook-timeout", "--webhook-retry-base", "--webhook-retry-window",
                       "--webhook-lease", "--webhook-concurrency", "READER_GATEWAY_WEBHOOK_ALLOW_PRIVATE_ADDRESSES"] {
            #expect(output.contains(option), "missing \(option)")
        }
    }

    @Test(arguments: [["--no-such-option"], ["--log-level", "loud"], ["--database-pool-size", "many"], ["--connect-batches-in-flight", "0"], ["--connect-batches-in-flight", "9"], ["stray"], ["--websocket-origins", "pos.example.com"], ["--release-buffers-after", "never"], ["--auth-failures-per-source", "20"], ["--auth-failures-per-source", "0/6s"], ["--auth-failures-per-account", "50/0s"],
                      ["--webhook-timeout", "20s", "--webhook-lease", "10s"], ["--webhook-ca-file", "/nonexistent/ca.pem"], ["--webhook-retry-window", "0s"],
                      ["--webhook-concurrency", "0"]])
    func badOptionsExit64WithOneLine(arguments: [String]) async throws {
        let (status, output) = try await GatewayProcess.run(arguments)
        #expect(status == 64)
        #expect(output.split(separator: "\n").count == 1, "\(output)")
        #expect(output.hasPrefix("reader-gateway: "))
    }

    @Test func badEnvironmentExits64() async throws {
        let (status, output) = try await GatewayProcess.run([], environment: ["READER_GATEWAY_LOG_FORMAT=xml"])
        #expect(status == 64)
        #expect(output.contains("--log-format"))
        let (originStatus, originOutput) = try await GatewayProcess.run([], environment: ["READER_GATEWAY_WEBSOCKET_ORIGINS=https://pos.example.com/lane"])
        #expect(originStatus == 64)
        #expect(originOutput.contains("--websocket-origins") && originOutput.contains("https://pos.example.com/lane"), "\(originOutput)")
    }

    /// First run creates the cluster; a second gateway on the same directory is
    /// refused; SIGKILL then restart keeps the data; SIGTERM stops cleanly.
    @Test func embeddedServerLifecycle() async throws {
        let directory = TestPostgres.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let dataDirectory = directory + "/data"

        let first = try await GatewayProcess.start(["--data-dir", dataDirectory], outputPath: directory + "/first.log")
        let ready = try #require(await first.waitForLine(containing: "msg=ready"), "first gateway not ready:\n\(first.output)")
        #expect(ready.contains("data_dir=\(dataDirectory)"))
        #expect(ready.contains("socket=\(dataDirectory)/.s.PGSQL.5432"))
        #expect(first.output.contains("creating a new PostgreSQL cluster"))
        #expect(first.output.contains("development default"))

        let client = try PostgresClient(
            configuration: .init(connectionString: "host=\(dataDirectory) user=postgres dbname=reader_gateway"),
            logger: Logger(component: "store")
        )
        try await client.execute("INSERT INTO accounts (id, name, secret_key_sha256) VALUES ('acct_kept', 'Kept', sha256('k'::bytea))")
        await client.shutdown()

        let (secondStatus, secondOutput) = try await GatewayProcess.run(["--data-dir", dataDirectory])
        #expect(secondStatus != nil && secondStatus != 0)
        #expect(secondOutput.contains("data directory \(dataDirectory) is in use by reader-gateway pid \(first.process.pid)"), "\(secondOutput)")

        first.process.signal(SIGKILL)
        #expect(await first.process.wait(timeout: .seconds(10)) != nil)

        let third = try await GatewayProcess.start(["--data-dir", dataDirectory], outputPath: directory + "/third.log")
        _ = try #require(await third.waitForLine(containing: "msg=ready"), "restart after SIGKILL not ready:\n\(third.output)")
        #expect(!third.output.contains("creating a new PostgreSQL cluster"))
        let again = try PostgresClient(
            configuration: .init(connectionString: "host=\(dataDirectory) user=postgres dbname=reader_gateway"),
            logger: Logger(component: "store")
        )
        let rows = try await again.query("SELECT name FROM accounts WHERE id = 'acct_kept'")
        #expect(try rows.first?.decode(String.self, "name") == "Kept")
        await again.shutdown()

        third.process.signal(SIGTERM)
        #expect(await third.process.wait(timeout: .seconds(30)) == 0)
        #expect(third.output.contains("msg=stopped"))
        #expect(!FileManager.default.fileExists(atPath: dataDirectory + "/postgres/postmaster.pid"))
    }

    @Test func databaseURLUsesThatServerAndHidesThePassword() async throws {
        let database = try await TestPostgres.database(migrations: [])
        await database.close()
        let server = try await TestPostgres.server()
        let url = "postgresql://postgres:hunter2secret@/\(database.name)?host=\(server.socketDirectory)"
        let directory = TestPostgres.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let gateway = try await GatewayProcess.start(
            ["--data-dir", directory + "/unused"], outputPath: directory + "/gateway.log",
            environment: ["READER_GATEWAY_DATABASE_URL=\(url)", "READER_GATEWAY_LOG_FORMAT=json"]
        )
        let ready = try #require(await gateway.waitForLine(containing: "\"msg\":\"ready\""), "not ready:\n\(gateway.output)")
        #expect(ready.contains(database.name))
        #expect(!gateway.output.contains("hunter2secret"))
        #expect(!gateway.output.contains("embedded"))
        #expect(!FileManager.default.fileExists(atPath: directory + "/unused"))
        gateway.process.signal(SIGINT)
        #expect(await gateway.process.wait(timeout: .seconds(30)) == 0)

        let client = try PostgresClient(configuration: .init(connectionString: database.connectionString), logger: Logger(component: "store"))
        let versions = try await client.query("SELECT max(version) AS v FROM schema_migrations")
        #expect(try versions[0].decode(Int.self, "v") == Migrations.latestVersion)
        await client.shutdown()
    }

    @Test func unreachableDatabaseExitsWithAClearError() async throws {
        let directory = TestPostgres.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (status, output) = try await GatewayProcess.run(["--database-url", "postgresql:///nowhere?host=\(directory)"])
        #expect(status == 1)
        #expect(output.contains("cannot start store"))
        #expect(output.contains("cannot connect to PostgreSQL"))
    }

    @Test func databaseFromANewerGatewayIsRefused() async throws {
        let database = try await TestPostgres.database()
        try await database.client.execute("INSERT INTO schema_migrations (version, name) VALUES (9999, 'from the future')")
        await database.close()
        let (status, output) = try await GatewayProcess.run(["--database-url", database.connectionString])
        #expect(status == 1)
        #expect(output.contains("databaseTooNew"))
        #expect(output.contains("schema is at version 9999"))
    }
}
