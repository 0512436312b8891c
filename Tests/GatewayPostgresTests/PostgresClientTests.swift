import GatewayTestKit
import Foundation
import GatewayCore
import GatewayPostgres
import GatewayTestSupport
import Testing

@Suite("PostgresClient against a real server")
struct PostgresClientTests {
    @Test func parametersAndTypesRoundTrip() async throws {
        try await TestPostgres.withDatabase { database in
            let id = UUID()
            let date = Date(timeIntervalSince1970: 1_790_000_000.123456)
            let bytes: [UInt8] = [0, 1, 0x7f, 0x80, 0xff]
            let text = "O'Brien \"quoted\" \\ ünïcødé; DROP TABLE x; --"
            let rows = try await database.client.query(
                """
                SELECT $1::int8 AS big, $2::text AS text, $3::bool AS flag, $4::timestamptz AS at,
                       $5::uuid AS id, $6::bytea AS bytes, $7::text AS missing, $8::float8 AS ratio
                """,
                [.init(Int64.max), .init(text), .init(true), .init(date), .init(id), .init(bytes: bytes), nil, .init(0.25)]
            )
            #expect(rows.count == 1)
            let row = try #require(rows.first)
            #expect(try row.decode(Int64.self, "big") == Int64.max)
            #expect(try row.decode(String.self, "text") == text)
            #expect(try row.decode(Bool.self, "flag"))
            let decodedDate = try row.decode(Date.self, "at")
            #expect(abs(decodedDate.timeIntervalSince1970 - date.timeIntervalSince1970) < 0.000002)
            #expect(try row.decode(UUID.self, "id") == id)
            #expect(try row.decode(String.self, "id") == id.uuidString.lowercased())
            #expect(try row.decode(PostgresBytes.self, "bytes").bytes == bytes)
            #expect(try row.decode(String?.self, "missing") == nil)
            #expect(try row.decode(Double.self, "ratio") == 0.25)
            #expect(throws: StoreError.self) { try row.decode(String.self, "missing") }
            #expect(throws: StoreError.self) { try row.decode(Int.self, "text") }
            #expect(throws: StoreError.self) { try row.decode(Int.self, "no_such_column") }
        }
    }

    /// Columns are looked for first after the last one found: whatever the order of the
    /// decodes, a name is found at its first position in the SELECT list.
    @Test func columnsFoundByNameInAnyOrderAtTheirFirstPosition() async throws {
        try await TestPostgres.withDatabase { database in
            let rows = try await database.client.query(
                "SELECT n AS a, n * 10 AS b, n * 100 AS a, n * 1000 AS c FROM generate_series(1, 3) AS n", []
            )
            #expect(rows.count == 3)
            for (index, row) in rows.enumerated() {
                let n = index + 1
                // In the list's order: `a` then `b` (the hint points at the second `a` next).
                #expect(try row.decode(Int.self, "a") == n)
                #expect(try row.decode(Int.self, "b") == n * 10)
                #expect(try row.decode(Int.self, "a") == n)
                #expect(try row.decode(Int.self, "c") == n * 1000)
                // Backwards, and a name the result lacks.
                #expect(try row.decode(Int.self, "c") == n * 1000)
                #expect(try row.decode(Int.self, "b") == n * 10)
                #expect(throws: StoreError.self) { try row.decode(Int.self, "d") }
                #expect(try row.decode(Int.self, "a") == n)
            }
        }
    }

    @Test func rowsAndAffectedCounts() async throws {
        try await TestPostgres.withDatabase { database in
            let client = database.client
            try await client.execute("INSERT INTO accounts (id, name, secret_key_sha256) VALUES ($1, $2, sha256($3::bytea))", ["acct_1", "One", "k1"])
            try await client.execute("INSERT INTO accounts (id, name, secret_key_sha256) VALUES ($1, $2, sha256($3::bytea))", ["acct_2", "Two", "k2"])
            let updated = try await client.execute("UPDATE accounts SET name = upper(name)")
            #expect(updated == 2)
            let rows = try await client.query("SELECT id, name, created_at FROM accounts ORDER BY id")
            #expect(rows.map { try? $0.decode(String.self, "name") } == ["ONE", "TWO"])
            #expect(rows.columns == ["id", "name", "created_at"])
            let none = try await client.query("SELECT id FROM accounts WHERE id = $1", ["acct_none"])
            #expect(none.isEmpty)
        }
    }

    @Test func uniqueViolationCarriesSQLState() async throws {
        try await TestPostgres.withDatabase { database in
            let insert = "INSERT INTO accounts (id, name, secret_key_sha256) VALUES ($1, 'A', sha256($2::bytea))"
            try await database.client.execute(insert, ["acct_dup", "one"])
            do throws(StoreError) {
                try await database.client.execute(insert, ["acct_dup", "two"])
                Issue.record("the second insert succeeded")
            } catch {
                #expect(error.code == .uniqueViolation)
                #expect(error.sqlState == "23505")
                #expect(error.message.contains("duplicate key"))
                #expect(!error.isRetryable)
            }
            // The connection is still usable after the error.
            let rows = try await database.client.query("SELECT count(*) AS n FROM accounts")
            #expect(try rows[0].decode(Int.self, "n") == 1)
        }
    }

    @Test func syntaxErrorIsQueryFailed() async throws {
        try await TestPostgres.withDatabase { database in
            do throws(StoreError) {
                _ = try await database.client.query("SELEC 1")
                Issue.record("a syntax error succeeded")
            } catch {
                #expect(error.code == .queryFailed)
                #expect(error.sqlState == "42601")
            }
        }
    }

    @Test func statementTimeoutIsTimeout() async throws {
        try await TestPostgres.withDatabase { database in
            do {
                try await database.client.withTransaction { transaction in
                    try await transaction.execute("SET LOCAL statement_timeout = '50ms'")
                    try await transaction.execute("SELECT pg_sleep(5)")
                }
                Issue.record("the statement was not cancelled")
            } catch let error as StoreError {
                #expect(error.code == .timeout)
                #expect(error.sqlState == "57014")
            }
        }
    }

    @Test func concurrentQueriesEachGetTheirOwnResult() async throws {
        try await TestPostgres.withDatabase { database in
            let client = database.client
            let results = try await withThrowingTaskGroup(of: (Int, Int).self) { group in
                for index in 0..<300 {
                    group.addTask {
                        let rows = try await client.query("SELECT $1::int * 2 AS doubled", [.init(index)])
                        return (index, try rows[0].decode(Int.self, "doubled"))
                    }
                }
                var collected: [Int: Int] = [:]
                for try await (index, doubled) in group { collected[index] = doubled }
                return collected
            }
            #expect(results.count == 300)
            #expect(results.allSatisfy { $0.value == $0.key * 2 })
        }
    }

    @Test func failingStatementDoesNotDisturbOthersInThePipeline() async throws {
        try await TestPostgres.withDatabase { database in
            let client = database.client
            let outcomes = await withTaskGroup(of: Bool.self) { group in
                for index in 0..<100 {
                    group.addTask {
                        let sql = index % 3 == 0 ? "SELECT 1 / 0" : "SELECT $1::int"
                        let parameters: [PostgresValue?] = index % 3 == 0 ? [] : [.init(index)]
                        do throws(StoreError) {
                            _ = try await client.query(sql, parameters)
                            return index % 3 != 0
                        } catch {
                            return index % 3 == 0 && error.sqlState == "22012"
                        }
                    }
                }
                var all: [Bool] = []
                for await outcome in group { all.append(outcome) }
                return all
            }
            #expect(outcomes.count == 100)
            #expect(outcomes.allSatisfy { $0 })
        }
    }

    @Test func transactionCommitsOrRollsBack() async throws {
        try await TestPostgres.withDatabase { database in
            let client = database.client
            struct Abort: Error {}
            await #expect(throws: Abort.self) {
                try await client.withTransaction { transaction in
                    try await transaction.execute("INSERT INTO accounts (id, name, secret_key_sha256) VALUES ('acct_rb', 'R', sha256('x'::bytea))")
                    let inside = try await transaction.query("SELECT count(*) AS n FROM accounts")
                    #expect(try inside[0].decode(Int.self, "n") == 1)
                    throw Abort()
                }
            }
            let afterRollback = try await client.query("SELECT count(*) AS n FROM accounts")
            #expect(try afterRollback[0].decode(Int.self, "n") == 0)

            let name = try await client.withTransaction(isolationLevel: .serializable) { transaction in
                try await transaction.execute("INSERT INTO accounts (id, name, secret_key_sha256) VALUES ('acct_c', 'C', sha256('y'::bytea))")
                return try await transaction.query("SELECT name FROM accounts WHERE id = 'acct_c'")[0].decode(String.self, "name")
            }
            #expect(name == "C")
            let afterCommit = try await client.query("SELECT count(*) AS n FROM accounts")
            #expect(try afterCommit[0].decode(Int.self, "n") == 1)
        }
    }

    @Test func transactionsAreIsolatedFromPoolTraffic() async throws {
        try await TestPostgres.withDatabase { database in
            let client = database.client
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<20 {
                    group.addTask {
                        try await client.withTransaction { transaction in
                            try await transaction.execute(
                                "INSERT INTO accounts (id, name, secret_key_sha256) VALUES ($1, 'T', sha256(convert_to($1, 'UTF8')))", [.init("acct_t\(index)")]
                            )
                            if index % 2 == 0 { throw CancellationError() }
                        }
                    }
                    group.addTask { _ = try await client.query("SELECT count(*) FROM accounts") }
                }
                while true {
                    do {
                        guard try await group.next() != nil else { break }
                    } catch is CancellationError {
                        continue
                    }
                }
            }
            let rows = try await client.query("SELECT count(*) AS n FROM accounts")
            #expect(try rows[0].decode(Int.self, "n") == 10)
        }
    }

    @Test func saturatedPoolTimesOutWaiters() async throws {
        try await TestPostgres.withDatabase { database in
            var configuration = PostgresConfiguration(connectionString: database.connectionString)
            configuration.maximumConnections = 1
            configuration.connectionWaitTimeout = .milliseconds(200)
            let client = try PostgresClient(configuration: configuration, logger: Logger(component: "store"))
            // Open the pool's one connection first: on a loaded machine opening it can take longer
            // than the 200 ms a waiter may wait, and the test is about a busy connection, not a
            // slow connect.
            var opened = false
            let openBy = ContinuousClock.now + outcomeDeadline
            while !opened, ContinuousClock.now < openBy {
                do { _ = try await client.query("SELECT 1"); opened = true } catch let error as StoreError where error.code == .timeout {}
            }
            #expect(opened)
            let started = ContinuousClock.now
            let outcome = try await client.withTransaction { _ in
                // The only connection is pinned here: a pool statement must wait, then give up.
                do throws(StoreError) {
                    _ = try await client.query("SELECT 1")
                    return "ran"
                } catch {
                    return "\(error.code)"
                }
            }
            #expect(outcome == "timeout")
            #expect(ContinuousClock.now - started >= .milliseconds(200))
            // Once the transaction ended, the connection serves the pool again.
            let rows = try await client.query("SELECT 7 AS n")
            #expect(try rows[0].decode(Int.self, "n") == 7)
            await client.shutdown()
        }
    }

    @Test func noticesGoToTheLogger() async throws {
        // A capture beside the process's destination: tests that bootstrap logging meanwhile
        // (GATEWAY_TEST_TRACE) neither take these lines away nor lose their own.
        let capture = LogCapture()
        LoggingSystem.shared.startCapturing(capture)
        defer { LoggingSystem.shared.stopCapturing(capture) }
        let marker = "notice-\(UUID().uuidString)"
        try await TestPostgres.withDatabase { database in
            try await database.client.execute("DO $$ BEGIN RAISE NOTICE '%', '\(marker)'; END $$")
        }
        let line = capture.all.first { $0.contains(marker) }
        #expect(line?.contains("level=notice") == true)
        #expect(line?.contains("component=store") == true)
    }

    @Test func listenDeliversNotifications() async throws {
        try await TestPostgres.withDatabase { database in
            let stream = try await database.client.listen("reader events")
            let sender = try database.makeClient()
            try await sender.execute("SELECT pg_notify($1, $2)", ["reader events", "tmr_1 online"])
            try await sender.execute("SELECT pg_notify($1, $2)", ["other", "ignored"])
            try await sender.execute("SELECT pg_notify($1, $2)", ["reader events", "tmr_2 offline"])
            await sender.shutdown()
            let received = try await firstElements(of: stream, count: 2, timeout: .seconds(10))
            #expect(received.map(\.payload) == ["tmr_1 online", "tmr_2 offline"])
            #expect(received.allSatisfy { $0.channel == "reader events" && $0.senderPID > 0 })
        }
    }

    @Test func unreachableServerFailsFast() async throws {
        let directory = TestPostgres.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let client = try PostgresClient(
            configuration: .init(connectionString: "host=\(directory) dbname=nothing user=postgres"),
            logger: Logger(component: "store")
        )
        do throws(StoreError) {
            _ = try await client.query("SELECT 1")
            Issue.record("a query without a server succeeded")
        } catch {
            #expect(error.code == .connectionFailed)
            #expect(error.isRetryable)
            #expect(error.message.contains(directory))
        }
        await client.shutdown()
    }

    @Test func shutDownClientRefusesWork() async throws {
        let database = try await TestPostgres.database()
        _ = try await database.client.query("SELECT 1")
        await database.close()
        do throws(StoreError) {
            _ = try await database.client.query("SELECT 1")
            Issue.record("a query after shutdown succeeded")
        } catch {
            #expect(error.code == .closed)
        }
    }

    @Test func malformedURLIsRejected() {
        #expect(throws: StoreError.self) {
            _ = try PostgresClient(configuration: .init(connectionString: "postgresql://host:notaport:/x?bad=="), logger: Logger(component: "store"))
        }
        let redacted = PostgresConfiguration(connectionString: "postgresql://gw:s3cret@db.example:5433/gateway").redactedDescription
        #expect(!redacted.contains("s3cret"))
        #expect(redacted.contains("db.example"))
    }
}

struct TimedOut: Error {}

/// The first `count` elements of `stream`, or an error after `timeout`.
func firstElements<Element: Sendable>(of stream: AsyncStream<Element>, count: Int, timeout: Duration) async throws -> [Element] {
    return try await withThrowingTaskGroup(of: [Element]?.self) { group in
        group.addTask {
            var collected: [Element] = []
            for await element in stream {
                collected.append(element)
                if collected.count == count { break }
            }
            return collected
        }
        group.addTask {
            try await Task.sleep(for: timeout)
            return nil
        }
        let first = try await group.next() ?? nil
        group.cancelAll()
        guard let first else { throw TimedOut() }
        return first
    }
}

@Suite("PostgresClient pool statistics against a real server")
struct PostgresClientPoolStatisticsTests {
    /// One connection, so every count is decided: idle, then pinned by a transaction with a
    /// statement waiting behind it, then idle again once both are done.
    @Test func aTransactionHoldsTheConnectionAndAStatementWaitsForIt() async throws {
        let database = try await TestPostgres.database(maximumConnections: 1)
        let client = database.client
        try await client.ping()
        // The ping's connection is handed back by the store thread, maybe after the answer.
        #expect(await eventually { client.poolStatistics() == PoolStatistics(idle: 1, maximumConnections: 1) })
        let waiter = try await client.withTransaction { transaction in
            _ = try await transaction.query("SELECT 1")
            #expect(client.poolStatistics() == PoolStatistics(inUse: 1, maximumConnections: 1))
            let waiter = Task { try await client.query("SELECT 2 AS two") }
            #expect(await eventually { client.poolStatistics().waiting == 1 }, "the statement did not wait for the pinned connection")
            #expect(client.poolStatistics() == PoolStatistics(inUse: 1, waiting: 1, maximumConnections: 1))
            return waiter
        }
        #expect(try await waiter.value.first?.decode(Int.self, "two") == 2)
        #expect(await eventually { client.poolStatistics() == PoolStatistics(idle: 1, maximumConnections: 1) }, "the connection was not handed back")
        await client.shutdown()
    }
}
