import GatewayCore
import GatewayOperations
import GatewayPostgres
import GatewayRepositories
import Synchronization

/// The account's event log as the admin surface reads it and the SDK surface writes the
/// events no other row carries: PostgreSQL's ``EventStore`` in the gateway.
protocol FleetEventLog: Sendable {
    func events(account: String, filter: EventFilter, beforeSeq: Int64?, limit: Int) async throws(StoreError) -> [EventRecord]
    func event(_ id: String, account: String) async throws(StoreError) -> EventRecord?
    /// The reader's new version and `reader.software_update.installed`, in one transaction.
    @discardableResult
    func softwareUpdateInstalled(reader: String, account: String, version: String, details: [String: String]) async throws -> String?
    @discardableResult
    func appendReaderEvent(_ type: String, reader: String, account: String, details: [String: String]) async throws(StoreError) -> String?
    /// Queues a reader event nobody waits for (a command's outcome): written with others that
    /// arrive together, in one statement.
    func enqueue(_ event: ReaderEventBatcher.Event)
}

/// PostgreSQL's event log: reads and single writes by ``EventStore``, queued writes by a
/// ``ReaderEventBatcher``.
struct GatewayEventLog: FleetEventLog {
    let store: EventStore
    let batcher: ReaderEventBatcher

    init(client: PostgresClient, metrics: GatewayMetrics, logger: Logger) {
        store = EventStore(client: client)
        let dropping = Atomic<Bool>(false)
        batcher = ReaderEventBatcher(
            client: client,
            failed: { error, count in
                metrics.storeErrors.labels(StoreErrorKind(error)).increment()
                logger.warning("writing command outcome events failed: the event log misses them", ["events": count, "error": "\(error)"])
            },
            dropped: { _ in
                metrics.eventsDropped.unlabeled.increment()
                // One line when dropping starts, not one per event.
                if !dropping.exchange(true, ordering: .relaxed) {
                    logger.warning("the event log's queue is full: command outcome events are dropped until PostgreSQL catches up (reader_gateway_events_dropped_total)")
                }
            }
        )
    }

    func events(account: String, filter: EventFilter, beforeSeq: Int64?, limit: Int) async throws(StoreError) -> [EventRecord] {
        try await store.events(account: account, filter: filter, beforeSeq: beforeSeq, limit: limit)
    }

    func event(_ id: String, account: String) async throws(StoreError) -> EventRecord? {
        try await store.event(id, account: account)
    }

    func softwareUpdateInstalled(reader: String, account: String, version: String, details: [String: String]) async throws -> String? {
        try await store.softwareUpdateInstalled(reader: reader, account: account, version: version, details: details)
    }

    func appendReaderEvent(_ type: String, reader: String, account: String, details: [String: String]) async throws(StoreError) -> String? {
        try await store.appendReaderEvent(type, reader: reader, account: account, details: details)
    }

    func enqueue(_ event: ReaderEventBatcher.Event) {
        batcher.append(event)
    }
}
