import Foundation
import GatewayCore
import GatewayPostgres
import GatewayTestSupport
import Synchronization
import Testing

/// The client across a real failover: a primary with a streaming standby
/// (``ReplicatedPostgres``), the client given both addresses, the primary killed with
/// `kill -9` while a writer runs, the standby promoted. The client must find the new primary
/// by itself, LISTEN there again, and — with synchronous replication — every write it
/// acknowledged must be on the promoted server.
@Suite("PostgresClient across a failover", .serialized, .timeLimit(.minutes(5)))
struct PostgresFailoverTests {
    /// Synchronous: nothing acknowledged is lost. Asynchronous: the client follows all the
    /// same; what it lost is counted and printed (the promoted standby may lack the last
    /// commits the old primary acknowledged: the figure for docs/operations.md).
    @Test(arguments: [ReplicatedPostgres.Replication.synchronous, .asynchronous])
    func failoverIsFollowedAndListenedAgain(_ replication: ReplicatedPostgres.Replication) async throws {
        try await ReplicatedPostgres.withPair(replication: replication) { try await failOver($0) }
    }

    private func failOver(_ pair: ReplicatedPostgres) async throws {
        var configuration = PostgresConfiguration(connectionString: pair.connectionString)
        configuration.maximumConnections = 2
        let client = try PostgresClient(configuration: configuration, logger: Logger(component: "store"))
        try await client.execute("CREATE TABLE acknowledged (n bigint PRIMARY KEY)")
        // The table must be on the standby before the primary dies: an asynchronous standby
        // may lag by any amount, and a promoted server without the table refuses every write.
        try await pair.waitForStandbyReplay()

        // A follower of one channel: how often it was subscribed, and what it heard.
        let heard = Mutex<(subscriptions: Int, payloads: [String], markers: Int)>((0, [], 0))
        let follower = Task {
            await client.follow("failover", retryDelay: .milliseconds(200), subscribed: {
                heard.withLock { $0.subscriptions += 1 }
            }) { notification in
                heard.withLock { notification.isResubscription ? ($0.markers += 1) : $0.payloads.append(notification.payload) }
            }
        }
        #expect(await eventually { heard.withLock { $0.subscriptions } == 1 })

        let writer = Writer(client: client)
        let writing = Task { await writer.run() }
        #expect(await eventually { writer.acknowledgedCount >= 50 })

        let killed = ContinuousClock.now
        await pair.killPrimary()
        let promoting = ContinuousClock.now
        try await pair.promoteStandby()
        let promoted = ContinuousClock.now
        #expect(pair.primarySlot == 1)

        // The writer finds the promoted server by itself.
        #expect(await eventually { writer.firstSuccess(after: promoted) != nil }, "no write succeeded after the promotion; the last failure: \(writer.failures.last.map { "\($0)" } ?? "none")")
        let firstWrite = try #require(writer.firstSuccess(after: promoted))
        #expect(await eventually { writer.acknowledgedCount >= writer.acknowledgedBefore(promoted) + 50 })
        writer.stop()
        await writing.value

        // The LISTEN follows: the subscription is made again on the promoted server, its
        // marker says "re-read what you missed", and a NOTIFY sent there is heard.
        #expect(await eventually { heard.withLock { $0.markers } >= 1 })
        try await client.execute("SELECT pg_notify('failover', 'after')")
        #expect(await eventually { heard.withLock { $0.payloads.contains("after") } })
        follower.cancel()

        // Every acknowledged write is on the promoted server.
        let acknowledged = writer.acknowledged
        let checker = try PostgresClient(configuration: .init(connectionString: pair.connectionString(slot: 1)), logger: Logger(component: "check"))
        let present = Set(try await checker.query("SELECT n FROM acknowledged").map { try $0.decode(Int64.self, "n") })
        let lost = acknowledged.filter { !present.contains($0) }
        // Acknowledged after pg_promote() returned: by the promoted server, never lost.
        let untilPromoted = writer.acknowledged(before: promoted)
        #expect(Set(lost).isSubset(of: untilPromoted), "writes the promoted server acknowledged are missing: \(lost.filter { !untilPromoted.contains($0) }.prefix(20))")
        if pair.replication == .synchronous {
            #expect(lost.isEmpty, "acknowledged writes missing after the failover: \(lost.prefix(20))")
        } else {
            // Acknowledged before the kill: by the old primary, one after another. What an
            // asynchronous standby has of them is a prefix (it replays the WAL in order).
            let byOldPrimary = writer.acknowledged(before: killed)
            let firstLost = byOldPrimary.filter { !present.contains($0) }.min() ?? Int64.max
            #expect(byOldPrimary.filter { $0 > firstLost && present.contains($0) }.isEmpty, "the promoted server has writes after the first it lacks (\(firstLost))")
        }
        let inRecovery = try await checker.query("SELECT pg_is_in_recovery() AS standby")[0].decode(Bool.self, "standby")
        #expect(!inRecovery)
        await checker.shutdown()
        await client.shutdown()

        let failures = writer.failures
        print("failover (\(pair.replication.rawValue)): kill -9 done in \(seconds(promoting - killed)), pg_promote() returned in \(seconds(promoted - promoting)); promoted → first acknowledged write in \(seconds(firstWrite - promoted)); \(failures.count) writes failed retryably meanwhile (\(Dictionary(grouping: failures, by: { "\($0.code)" }).mapValues(\.count))), \(failures.filter { !$0.isRetryable }.count) not retryably; \(lost.count) of \(acknowledged.count) acknowledged writes lost")
        let notRetryable = failures.filter { !$0.isRetryable }
        #expect(notRetryable.isEmpty, "failures that are not retryable: \(notRetryable.prefix(3))")
    }

    /// A server that refuses a write as read-only (a standby, or a demoted primary) is not the
    /// primary: the write fails retryably with ``StoreError/Code/notPrimary`` and the
    /// connection is dropped, so the next one looks for the primary again.
    @Test func aReadOnlyRefusalDropsTheConnection() async throws {
        try await ReplicatedPostgres.withPair(replication: .asynchronous) { pair in
            // target_session_attrs=any: the client takes the standby.
            var configuration = PostgresConfiguration(connectionString: pair.connectionString(slot: 1))
            configuration.maximumConnections = 1
            let client = try PostgresClient(configuration: configuration, logger: Logger(component: "store"))
            let standby = try await client.query("SELECT pg_is_in_recovery() AS standby")[0].decode(Bool.self, "standby")
            #expect(standby)
            #expect(client.poolStatistics().idle + client.poolStatistics().inUse == 1)
            do throws(StoreError) {
                try await client.execute("CREATE TABLE refused (n int)")
                Issue.record("a write on the standby succeeded")
            } catch {
                #expect(error.code == .notPrimary)
                #expect(error.isRetryable)
                #expect(error.sqlState == "25006")
            }
            #expect(await eventually { client.poolStatistics().idle + client.poolStatistics().inUse == 0 })
            // Without `any` the client does not take the standby at all.
            let strict = try PostgresClient(
                configuration: .init(connectionString: pair.connectionString(slot: 1).replacingOccurrences(of: "target_session_attrs=any", with: "")),
                logger: Logger(component: "store")
            )
            do throws(StoreError) {
                try await strict.execute("SELECT 1")
                Issue.record("a client without target_session_attrs connected to the standby")
            } catch {
                #expect(error.code == .connectionFailed)
                #expect(error.message.contains("accepts writes"), "\(error)")
            }
            await strict.shutdown()
            await client.shutdown()
        }
    }
}

/// One caller writing increasing numbers, one at a time, retrying each on a retryable error:
/// which numbers were acknowledged, and when.
private final class Writer: Sendable {
    let client: PostgresClient
    private let state = Mutex<(acknowledged: [(Int64, ContinuousClock.Instant)], failures: [StoreError], stopped: Bool)>(([], [], false))

    init(client: PostgresClient) { self.client = client }

    func run() async {
        var next: Int64 = 1
        while !state.withLock({ $0.stopped }) {
            do {
                try await client.execute("INSERT INTO acknowledged (n) VALUES ($1) ON CONFLICT DO NOTHING", [.init(next)])
                state.withLock { $0.acknowledged.append((next, .now)) }
                next += 1
            } catch {
                state.withLock { $0.failures.append(error) }
                // Paces the retries while no server accepts writes.
                try? await Task.sleep(for: .milliseconds(10))
            }
        }
    }

    func stop() { state.withLock { $0.stopped = true } }
    var acknowledged: [Int64] { state.withLock { $0.acknowledged.map(\.0) } }
    var acknowledgedCount: Int { state.withLock { $0.acknowledged.count } }
    var failures: [StoreError] { state.withLock { $0.failures } }
    func acknowledgedBefore(_ instant: ContinuousClock.Instant) -> Int { acknowledged(before: instant).count }
    func acknowledged(before instant: ContinuousClock.Instant) -> Set<Int64> {
        state.withLock { Set($0.acknowledged.filter { $0.1 < instant }.map(\.0)) }
    }
    func firstSuccess(after instant: ContinuousClock.Instant) -> ContinuousClock.Instant? {
        state.withLock { $0.acknowledged.first { $0.1 > instant }?.1 }
    }
}

private func seconds(_ duration: Duration) -> String {
    let (whole, attoseconds) = duration.components
    return String(format: "%.2f s", Double(whole) + Double(attoseconds) / 1e18)
}
