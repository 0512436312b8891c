import Foundation
import GatewayCore
import GatewayPostgres
import GatewayTestSupport
import Synchronization
import Testing

@Suite("PostgresClient when connections break")
struct PostgresClientRecoveryTests {
    @Test func inFlightStatementFailsRetryablyAndTheConnectionIsReplaced() async throws {
        try await TestPostgres.withDatabase { database in
            let client = database.client
            let admin = try database.makeClient()
            let marker = "sleep_\(UInt32.random(in: 0...UInt32.max))"
            let sleeper = Task { () async -> Result<PostgresRows, StoreError> in
                do throws(StoreError) {
                    return .success(try await client.query("SELECT pg_sleep(30) AS \(marker)"))
                } catch {
                    return .failure(error)
                }
            }
            let deadline = ContinuousClock.now + .seconds(20)
            var terminated = false
            while !terminated, ContinuousClock.now < deadline {
                let rows = try await admin.query(
                    "SELECT pg_terminate_backend(pid) AS done FROM pg_stat_activity WHERE query LIKE $1 AND pid <> pg_backend_pid()",
                    [.init("%\(marker)%")]
                )
                terminated = !rows.isEmpty
                if !terminated { try await Task.sleep(for: .milliseconds(10)) }
            }
            #expect(terminated)
            let outcome = await sleeper.value
            switch outcome {
            case .success: Issue.record("the terminated statement succeeded")
            case .failure(let error):
                #expect(error.code == .connectionLost)
                #expect(error.isRetryable)
            }
            let rows = try await client.query("SELECT 42 AS answer")
            #expect(try rows[0].decode(Int.self, "answer") == 42)
            await admin.shutdown()
        }
    }

    @Test func poolRecoversAfterTheServerRestarts() async throws {
        let server = try await TestPostgres.privateServer()
        defer { try? FileManager.default.removeItem(atPath: server.dataDirectory) }
        let client = try PostgresClient(
            configuration: .init(connectionString: server.connectionString(database: "postgres")),
            logger: Logger(component: "store")
        )
        let before = try await client.query("SELECT pg_backend_pid() AS pid")[0].decode(Int32.self, "pid")
        await server.stop()
        let restarted = try await EmbeddedPostgres.start(server.configuration, logger: Logger(component: "test-postgres"))

        var after: Int32?
        var failures: [StoreError] = []
        let deadline = ContinuousClock.now + .seconds(30)
        while after == nil, failures.count < 200, ContinuousClock.now < deadline {
            do throws(StoreError) {
                after = try await client.query("SELECT pg_backend_pid() AS pid")[0].decode(Int32.self, "pid")
            } catch {
                failures.append(error)
                try await Task.sleep(for: .milliseconds(20))
            }
        }
        #expect(after != nil)
        #expect(after != before)
        let allRetryable = failures.allSatisfy { $0.isRetryable }
        #expect(allRetryable, "\(failures)")
        await client.shutdown()
        await restarted.stop()
    }

    @Test func listenResumesAfterItsConnectionBreaks() async throws {
        try await TestPostgres.withDatabase { database in
            let stream = try await database.client.listen("recovery")
            let received = Mutex<[String]>([])
            let consumer = Task {
                // The resubscription marker after the break is tested in OwnershipNoticeTests.
                for await notification in stream where !notification.isResubscription {
                    received.withLock { $0.append(notification.payload) }
                }
            }
            let admin = try database.makeClient()
            let killed = try await admin.query(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE 'LISTEN%' AND datname = current_database()"
            )
            #expect(killed.count == 1)
            // Notifications sent while the listener reconnects are lost; keep sending until one arrives.
            let deadline = ContinuousClock.now + .seconds(20)
            var attempt = 0
            while received.withLock({ $0.isEmpty }), attempt < 400, ContinuousClock.now < deadline {
                attempt += 1
                try await admin.execute("SELECT pg_notify('recovery', $1)", [.init("after-\(attempt)")])
                try await Task.sleep(for: .milliseconds(25))
            }
            #expect(received.withLock { $0.first?.hasPrefix("after-") } == true)
            consumer.cancel()
            await admin.shutdown()
        }
    }
}
