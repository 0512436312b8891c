import Foundation
import GatewayPostgres
import GatewayRepositories
import GatewayTestSupport
import Testing

/// `gatewayctl accounts create` against a real PostgreSQL (the test run's embedded server).
@Suite("gatewayctl accounts create")
struct AccountCreationTests {
    @Test("creates the account, prints the secret key once, stores only its hash")
    func createsAccount() async throws {
        let database = try await TestPostgres.database()
        let ctl = try await ChildProcess.start("gatewayctl", ["--json", "accounts", "create", "--database-url", database.connectionString, "--name", "Acme"])
        #expect(await ctl.waitForExit(timeout: .seconds(30)) == 0, "stderr: \(ctl.standardError)")
        let document = ctl.output.joined(separator: "\n")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(document.utf8)) as? [String: Any])
        let secret = try #require(object["secret_key"] as? String)
        #expect(secret.hasPrefix("sk_") && secret.count == 46)
        let rows = try await database.client.query(
            "SELECT id, name, encode(secret_key_sha256, 'hex') AS hash FROM accounts WHERE secret_key_sha256 = sha256(convert_to($1::text, 'UTF8'))",
            [PostgresValue(secret)]
        )
        let row = try #require(rows.first)
        #expect(try row.decode(String.self, "name") == "Acme")
        #expect(try row.decode(String.self, "id") == object["account_id"] as? String)
        #expect(try !row.decode(String.self, "hash").contains(secret))
        await database.close()
    }

    @Test("a database without the schema is bad input (65); an unreachable one is unavailable (69)")
    func failures() async throws {
        let empty = try await TestPostgres.database(migrations: [])
        let noSchema = try await ChildProcess.start("gatewayctl", ["accounts", "create", "--database-url", empty.connectionString])
        #expect(await noSchema.waitForExit(timeout: .seconds(30)) == 65)
        #expect(noSchema.standardError.contains("start reader-gateway once"))
        await empty.close()
        let unreachable = try await ChildProcess.start("gatewayctl", ["accounts", "create", "--database-url", "postgresql://nobody@127.0.0.1:1/none"])
        #expect(await unreachable.waitForExit(timeout: .seconds(30)) == 69)
    }
}
