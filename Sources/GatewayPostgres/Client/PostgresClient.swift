import GatewayCore
import Synchronization

/// A pool of PostgreSQL connections that never blocks the caller's thread.
///
/// Every statement binds its parameters (`$1`, `$2`, …); nothing is spliced
/// into SQL text. Statements from concurrent callers are spread over up to
/// ``PostgresConfiguration/maximumConnections`` connections and pipelined on
/// each (see ``PostgresStoreLoop`` for the design). A connection that breaks
/// (server restart) is replaced on the next demand; statements that were in
/// flight on it fail with ``StoreError/Code/connectionLost``, which is
/// retryable.
///
/// ```swift
/// let client = try PostgresClient(configuration: .init(connectionString: url), logger: Logger(component: "store"))
/// let rows = try await client.query("SELECT name FROM accounts WHERE id = $1", [.init(id)])
/// let name = try rows.first?.decode(String.self, "name")
/// await client.shutdown()
/// ```
public final class PostgresClient: Sendable {
    public let configuration: PostgresConfiguration
    let loop: PostgresStoreLoop
    private let nextSubscriber = Atomic<Int>(1)

    public init(configuration: PostgresConfiguration, logger: Logger) throws(StoreError) {
        self.configuration = configuration
        loop = try PostgresStoreLoop(configuration: configuration, logger: logger)
    }

    deinit { loop.requestShutdown() }

    /// Runs one statement and returns its rows (empty for statements without rows).
    public func query(_ sql: String, _ parameters: [PostgresValue?] = []) async throws(StoreError) -> PostgresRows {
        try await run(sql, parameters, pinnedTo: nil)
    }

    /// Runs one statement and returns how many rows it affected.
    @discardableResult
    public func execute(_ sql: String, _ parameters: [PostgresValue?] = []) async throws(StoreError) -> Int {
        try await run(sql, parameters, pinnedTo: nil).affectedRows
    }

    /// Runs one statement on the client's **reserved connection** and returns how many rows it
    /// affected: for work that must not wait behind the pool, such as the node heartbeat that
    /// keeps a replica's lease. The reserved connection is one extra connection (opened on first
    /// use, beside ``PostgresConfiguration/maximumConnections`` and the LISTEN connection) that
    /// pool statements and transactions never use, so a burst that fills the pool's queue does
    /// not delay it. Keep what runs here small and rare: it has one connection.
    @discardableResult
    public func executeReserved(_ sql: String, _ parameters: [PostgresValue?] = []) async throws(StoreError) -> Int {
        try await queryReserved(sql, parameters).affectedRows
    }

    /// Like ``executeReserved(_:_:)``, returning the statement's rows.
    public func queryReserved(_ sql: String, _ parameters: [PostgresValue?] = []) async throws(StoreError) -> PostgresRows {
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<PostgresRows, StoreError>, Never>) in
            loop.submit(.reservedStatement(Statement(sql: sql, parameters: parameters) { continuation.resume(returning: $0) }))
        }
        return try result.get()
    }

    /// The pool's connections and waiters now, for metrics. Quick: it waits only for the
    /// store thread's current step, never for PostgreSQL.
    public func poolStatistics() -> PoolStatistics { loop.poolStatistics() }

    /// Checks that a connection can be opened and a statement run.
    public func ping() async throws(StoreError) {
        _ = try await query("SELECT 1")
    }

    /// Stops accepting statements, lets those in flight finish (at most 5 s),
    /// closes every connection and ends every LISTEN stream.
    public func shutdown() async {
        await loop.shutdown()
    }

    func run(_ sql: String, _ parameters: [PostgresValue?], pinnedTo connection: ConnectionID?) async throws(StoreError) -> PostgresRows {
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<PostgresRows, StoreError>, Never>) in
            loop.submit(.statement(
                Statement(sql: sql, parameters: parameters) { continuation.resume(returning: $0) },
                pinnedTo: connection
            ))
        }
        return try result.get()
    }

    /// Subscribes to `NOTIFY` on `channel`.
    ///
    /// Returns once the server confirmed the `LISTEN`, so a `NOTIFY` sent
    /// after this returns is delivered. The stream ends when the client shuts
    /// down; dropping (or cancelling the iteration of) the stream unsubscribes.
    /// All subscriptions share one extra connection, reopened if it breaks;
    /// notifications sent while it is down are lost, and once the channel is
    /// LISTENed again the stream yields one marker with
    /// ``PostgresNotification/isResubscription`` true (re-read what you may
    /// have missed). A consumer that falls
    /// behind keeps the newest 1024 undelivered notifications.
    public func listen(_ channel: String) async throws(StoreError) -> AsyncStream<PostgresNotification> {
        let subscriber = nextSubscriber.wrappingAdd(1, ordering: .relaxed).oldValue
        let (stream, continuation) = AsyncStream<PostgresNotification>.makeStream(bufferingPolicy: .bufferingNewest(1024))
        let loop = self.loop
        continuation.onTermination = { _ in loop.submit(.unlisten(subscriber: subscriber)) }
        let result = await withCheckedContinuation { (registered: CheckedContinuation<Result<Void, StoreError>, Never>) in
            loop.submit(.listen(channel: channel, subscriber: subscriber, stream: continuation) { registered.resume(returning: $0) })
        }
        try result.get()
        return stream
    }
}
