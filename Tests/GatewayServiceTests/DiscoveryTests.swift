import GatewayCore
import GatewayPostgres
import GatewayRepositories
import GatewayTestSupport
import GatewayWire
import Synchronization
import Testing

/// Discovery as Stripe's SDKs run it for internet readers (iOS SDK 4.0.0 on): one
/// answer per call with every reader at the location, complete when it answers; a new
/// discovery supersedes the previous one, whose readers are then stale; CancelDiscovery
/// ends a discovery still waiting for its answer.
@Suite("discoverReaders")
struct DiscoveryTests {
    @Test func oneAnswerWithEveryReaderAtTheLocationAndNoCancelBeforeTheNext() async throws {
        let harness = try await GatewayHarness.start()
        let store = try await StoreFixture.make(harness)
        // A second reader, registered but never attached: listed as offline.
        _ = try await store.admin.registerSerials(["STRM26138003393"], prefix: "Back", location: store.location)
        let empty = try await store.admin.createLocation("Empty store")
        let lane = try await store.lane("Lane 1")

        let found = try await lane.discover(location: store.location)
        #expect(found.readers.count == 2)
        let online = try #require(found.readers.first { $0.id == store.readerID })
        #expect(online.networkStatus == .online)
        #expect(online.label == "Front")
        #expect(online.serialNumber == "WSC513105011295")
        #expect(online.softwareVersion == "2.30.1")
        #expect(online.deviceType == .simulatedWiseposE)
        let offline = try #require(found.readers.first { $0.serialNumber == "STRM26138003393" })
        #expect(offline.networkStatus == .offline)
        #expect(offline.label == "Back")

        // The discovery completed with its answer: the next one needs no CancelDiscovery.
        let again = try await lane.discover(location: store.location)
        #expect(again.readers.count == 2)
        #expect(again.discoveryID != found.discoveryID)
        // Connecting to the offline reader fails with READER_OFFLINE.
        await expectFailure(.readerOffline) { try await lane.connect(offline.id, discovery: again.discoveryID, failIfInUse: true) }

        // The connection token is scoped to the store's location: another location is refused.
        await expectFailure(.permissionDenied) { try await lane.discover(location: empty) }
        let unscoped = try await TestLane.open(harness, connectionToken: try await store.admin.connectionToken(), label: "Office")
        #expect(try await unscoped.discover(location: empty).readers.isEmpty)
        await harness.stop()
    }

    @Test func aNewDiscoverySupersedesThePreviousOneWhoseReadersAreStale() async throws {
        let harness = try await GatewayHarness.start()
        let store = try await StoreFixture.make(harness)
        let lane = try await store.lane("Lane 1")
        let older = try await lane.discover(location: store.location)
        let latest = try await lane.discover(location: store.location)
        do {
            try await lane.connect(store.readerID, discovery: older.discoveryID, failIfInUse: true)
            Issue.record("a reader from a superseded discovery connected")
        } catch let failure as CallFailure {
            #expect(failure.reason == .staleDiscovery)
            #expect(failure.code == .failedPrecondition)
            // The message names both discoveries: which one the reader came from, and which superseded it.
            #expect(failure.status.message.contains(older.discoveryID) && failure.status.message.contains(latest.discoveryID), "\(failure)")
        }
        // The same reader from the latest discovery connects; a discovery after that needs no cancel either.
        try await lane.connect(store.readerID, discovery: latest.discoveryID, failIfInUse: true)
        _ = try await lane.discover(location: store.location)
        await expectFailure(.staleDiscovery) { try await lane.connect(store.readerID, discovery: latest.discoveryID, failIfInUse: true) }
        await harness.stop()
    }

    @Test func cancellingADiscoveryThatAnsweredChangesNothing() async throws {
        let harness = try await GatewayHarness.start()
        let store = try await StoreFixture.make(harness)
        let lane = try await store.lane("Lane 1")
        let found = try await lane.discover(location: store.location)
        try await lane.cancelDiscovery()
        // The answered discovery stays the latest, and its readers connect.
        try await lane.connect(store.readerID, discovery: found.discoveryID, failIfInUse: true)
        await harness.stop()
    }

    @Test func cancelDiscoveryEndsADiscoveryStillWaitingForItsAnswer() async throws {
        let harness = try await GatewayHarness.start(storePipelineDepth: 1)
        let store = try await StoreFixture.make(harness)
        let lane = try await store.lane("Lane 1")
        let answered = try await lane.discover(location: store.location)
        // The store is slow: every read of the readers table waits on a lock.
        let lock = try await ReadersTableLock.take(harness.database)
        do {
            let waiting = Task { try await lane.discover(location: store.location) }
            #expect(await lock.waitUntilReadsBlocked(1), "the discovery never reached the store")
            // Cancelling needs no statement (nothing queues behind the blocked read).
            try await lane.cancelDiscovery()
            // The waiting call ends at once, while the store still holds the lock.
            await expectFailure(.discoveryCanceled) { try await waiting.value }
            #expect(lock.isHeld, "the cancelled discovery ended only when the store answered")
            // The cancelled discovery never answered: the one before it is superseded, and none is fresh.
            await expectFailure(.staleDiscovery) { try await lane.connect(store.readerID, discovery: answered.discoveryID, failIfInUse: true) }
            await expectFailure(.staleDiscovery) { try await lane.connect(store.readerID, discovery: "", failIfInUse: true) }
            try await lock.release()
        } catch {
            try? await lock.release()
            throw error
        }
        // Discovering again works as usual.
        let again = try await lane.discover(location: store.location)
        try await lane.connect(store.readerID, discovery: again.discoveryID, failIfInUse: true)
        await harness.stop()
    }

    @Test func aNewDiscoveryEndsTheOneStillWaitingForItsAnswer() async throws {
        let harness = try await GatewayHarness.start(storePipelineDepth: 1)
        let store = try await StoreFixture.make(harness)
        // A session not scoped to a location, discovering every location: the newer
        // discovery reaches its start without a statement (the store's connections
        // pipeline statements, and one sent now could queue behind the blocked read).
        let lane = try await TestLane.open(harness, connectionToken: try await store.admin.connectionToken(), label: "Lane 1")
        let lock = try await ReadersTableLock.take(harness.database)
        let newer: Task<ReaderGatewayV1.DiscoverReadersResponse, any Error>
        do {
            let first = Task { try await lane.discover() }
            if !(await lock.waitUntilReadsBlocked(1)) { Issue.record("the first discovery never reached the store:\n\(await lock.activity())") }
            newer = Task { try await lane.discover() }
            // The first ends as soon as the newer one starts, while the store still holds the lock.
            do {
                _ = try await first.value
                Issue.record("the superseded discovery answered")
            } catch let failure as CallFailure {
                #expect(failure.reason == .discoveryCanceled)
                #expect(failure.code == .cancelled)
                #expect(failure.status.message.contains("superseded"), "\(failure)")
            }
            #expect(lock.isHeld, "the superseded discovery ended only when the store answered")
            try await lock.release()
        } catch {
            try? await lock.release()
            throw error
        }
        let found = try await newer.value
        #expect(found.readers.map(\.id) == [store.readerID])
        try await lane.connect(store.readerID, discovery: found.discoveryID, failIfInUse: true)
        await harness.stop()
    }

    @Test func discoveryFloodsAreRateLimitedPerSession() async throws {
        // A burst of 3 and almost no refill (one discovery per 1,000 s): however slowly a loaded
        // machine runs the ten discoveries, the bucket cannot refill between them.
        let harness = try await GatewayHarness.start(discoveryBurst: 3, discoveriesPerSecond: 0.001)
        let store = try await StoreFixture.make(harness)
        let flooding = try await store.lane("Lane 1")
        let calm = try await store.lane("Lane 2")
        var limited: CallFailure?
        for _ in 0..<10 {
            do {
                _ = try await flooding.discover(location: store.location)
            } catch let failure as CallFailure {
                limited = failure
                break
            }
        }
        let failure = try #require(limited, "ten discoveries in a row were all allowed")
        #expect(failure.reason == .rateLimited)
        #expect(failure.code == .resourceExhausted)
        #expect(failure.status.message.contains("retry in"))
        // The wait is in the status too, for a program to read: at most the 1,000 s one discovery takes to refill.
        #expect((1...1_000_000).contains(failure.status.retryAfterMs), "\(failure.status.retryAfterMs)")
        // Everyone else is served as usual.
        #expect(try await calm.discover(location: store.location).readers.count == 1)
        await harness.stop()
    }
}

/// An ACCESS EXCLUSIVE lock on the `readers` table, held in a transaction until
/// released: every read of the table (a discovery's) waits for it, as behind a slow store.
/// It has a client of its own, without pipelining, so its statements never queue behind
/// the gateway's blocked ones. It lets go by itself after `limit`, so that a call that
/// should have ended while the lock was held fails its test (``isHeld`` is then false)
/// instead of hanging it.
final class ReadersTableLock: Sendable {
    private let client: PostgresClient
    private let release: AsyncStream<Void>.Continuation
    private let holder: Task<Void, any Error>
    private let held = Mutex(true)

    private init(client: PostgresClient, release: AsyncStream<Void>.Continuation, holder: Task<Void, any Error>) {
        self.client = client
        self.release = release
        self.holder = holder
    }

    static func take(_ database: TestDatabase, limit: Duration = .seconds(60)) async throws -> ReadersTableLock {
        var configuration = PostgresConfiguration(connectionString: database.connectionString)
        configuration.maximumConnections = 2
        configuration.pipelineDepth = 1
        let client = try PostgresClient(configuration: configuration, logger: Logger(component: "test-lock"))
        let (released, release) = AsyncStream<Void>.makeStream()
        let (locked, lockedContinuation) = AsyncThrowingStream<Void, any Error>.makeStream()
        let holder = Task {
            do {
                try await client.withTransaction { transaction in
                    try await transaction.execute("LOCK TABLE readers IN ACCESS EXCLUSIVE MODE")
                    lockedContinuation.yield()
                    for await _ in released {}
                }
            } catch {
                lockedContinuation.finish(throwing: error)
                throw error
            }
        }
        for try await _ in locked { break }
        let lock = ReadersTableLock(client: client, release: release, holder: holder)
        Task { [weak lock] in
            try? await Task.sleep(for: limit)
            lock?.letGo()
        }
        return lock
    }

    /// Whether the lock is still held (not released, and its limit not reached).
    var isHeld: Bool { held.withLock { $0 } }

    private func letGo() {
        held.withLock { $0 = false }
        release.finish()
    }

    /// Commits the transaction (the waiting reads go on) and closes the client.
    func release() async throws {
        letGo()
        let committed = await holder.result
        await client.shutdown()
        try committed.get()
    }

    /// Waits until `count` discoveries' reads of `readers` wait for the lock (bounded
    /// generously: a loaded machine may take a while to get there). Only the discovery's own
    /// statement counts: the reader's battery write and its events also wait for the lock, in
    /// whatever number the test's timing gives. The gateway's store must not pipeline (its
    /// harness started with `storePipelineDepth: 1`): a discovery sent behind one of those on
    /// the same connection would never reach the lock.
    func waitUntilReadsBlocked(_ count: Int) async -> Bool {
        await eventually(timeout: .seconds(30)) {
            let rows = try? await client.query(
                """
                SELECT count(*)::int AS n FROM pg_stat_activity
                WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE $1
                """,
                // ReaderStore's read of an account's readers, which discoveries make.
                [PostgresValue("%FROM readers WHERE account_id = $1 AND%")]
            )
            return (try? rows?.first?.decode(Int.self, "n")) == count
        }
    }

    /// What the database's other sessions are doing (for a failure's message).
    func activity() async -> String {
        let rows = try? await client.query(
            """
            SELECT coalesce(wait_event_type, '-') || ' ' || coalesce(state, '-') || ': ' || left(query, 160) AS line FROM pg_stat_activity
            WHERE datname = current_database() AND pid <> pg_backend_pid() AND state IS DISTINCT FROM 'idle'
            """
        )
        guard let rows else { return "(pg_stat_activity could not be read)" }
        return rows.compactMap { row in try? row.decode(String.self, "line") }.joined(separator: "\n")
    }
}
