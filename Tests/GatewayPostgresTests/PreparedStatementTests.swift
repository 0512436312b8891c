import GatewayPostgres
import GatewayTestSupport
import Testing

/// Statements with parameters are prepared once per connection and run by name afterwards;
/// what the server refuses or invalidates is reported and prepared again, never stuck.
/// Each test uses a client of one connection, so every run lands on the same one.
@Suite("prepared statements")
struct PreparedStatementTests {
    @Test func aStatementRunsAgainWithNewParametersAndAFailedRunDoesNotSpoilIt() async throws {
        try await TestPostgres.withDatabase { database in
            let client = try database.makeClient(maximumConnections: 1)
            let insert = "INSERT INTO accounts (id, name, secret_key_sha256) VALUES ($1, $2, sha256($3::bytea))"
            try await client.execute(insert, ["acct_1", "One", "k1"])
            // The same (prepared) statement fails on a duplicate, then runs again.
            await #expect(throws: StoreError.self) { try await client.execute(insert, ["acct_1", "Again", "k1"]) }
            try await client.execute(insert, ["acct_2", "Two", "k2"])
            let names = try await client.query("SELECT name FROM accounts WHERE id = ANY ($1::text[]) ORDER BY id", ["{acct_1,acct_2}"])
            #expect(names.map { try? $0.decode(String.self, "name") } == ["One", "Two"])
            await client.shutdown()
        }
    }

    @Test func aStatementThePrepareRefusesReportsTheServersErrorAndOthersRunOn() async throws {
        try await TestPostgres.withDatabase { database in
            let client = try database.makeClient(maximumConnections: 1)
            do throws(StoreError) {
                _ = try await client.query("SELECT $1::no_such_type AS value", ["x"])
                Issue.record("a statement naming an unknown type ran")
            } catch {
                #expect(error.sqlState == "42704", "not the server's own error: \(error)")
            }
            let rows = try await client.query("SELECT $1::int8 + 1 AS next", [.init(Int64(41))])
            #expect(try rows.first?.decode(Int64.self, "next") == 42)
            await client.shutdown()
        }
    }

    @Test func aSchemaChangeThatAltersTheResultIsPreparedAgain() async throws {
        try await TestPostgres.withDatabase { database in
            let client = try database.makeClient(maximumConnections: 1)
            try await client.execute("CREATE TABLE prepared_probe (a int)")
            try await client.execute("INSERT INTO prepared_probe VALUES ($1::int)", [.init(1)])
            let select = "SELECT * FROM prepared_probe WHERE a = $1::int"
            #expect(try await client.query(select, [.init(1)]).columns == ["a"])
            try await client.execute("ALTER TABLE prepared_probe ADD COLUMN b int")
            // The server may refuse the old plan once ("cached plan must not change result
            // type"); the statement is then prepared again and answers with the new columns.
            var columns: [String] = []
            for _ in 0..<2 where columns.isEmpty {
                do throws(StoreError) {
                    columns = try await client.query(select, [.init(1)]).columns
                } catch {
                    #expect(error.sqlState == "0A000", "an unexpected failure: \(error)")
                }
            }
            #expect(columns == ["a", "b"])
            await client.shutdown()
        }
    }
}
