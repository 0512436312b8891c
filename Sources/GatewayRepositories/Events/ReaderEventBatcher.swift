import GatewayPostgres
import Synchronization

/// Reader events that arrive together written in one statement: the commands' outcomes, which
/// a busy replica ends by the tens of thousands a second (one display change per scan at every
/// lane). At most `maximumInFlight` statements run at once, each with up to `maximumBatch`
/// events in arrival order; a lone event goes at once when a statement slot is free. One
/// statement at a time by default: the log's order is then the order the events arrived in,
/// and so is the order they commit in (two statements in flight could commit a reader's later
/// outcome first, and a webhook endpoint, which gets a reader's events in log order as they
/// become visible, would receive them reversed).
///
/// Nobody waits for these writes (a lane has its answer before its command's event is
/// written), so the queue is bounded: past `maximumPending` events waiting, an event is dropped
/// and `dropped` says so (the log is then behind a store that cannot keep up, and a replica
/// must not grow without bound for it). A statement that fails reports its events to `failed`.
public final class ReaderEventBatcher: Sendable {
    public struct Event: Sendable, Hashable {
        public var type: String
        public var reader: String
        public var account: String
        /// Flat string fields of the event's object; the reader as it stands is added under
        /// `reader`. Encoded when the batch is written, off the caller's thread.
        public var details: [String: String]

        public init(type: String, reader: String, account: String, details: [String: String]) {
            self.type = type
            self.reader = reader
            self.account = account
            self.details = details
        }
    }

    let client: PostgresClient
    let maximumPending: Int
    private let queue: StatementBatchQueue<Event>
    private let pending = Atomic<Int>(0)
    private let failed: @Sendable (StoreError, Int) -> Void
    private let dropped: @Sendable (Event) -> Void

    public init(
        client: PostgresClient, maximumBatch: Int = 512, maximumInFlight: Int = 1, maximumPending: Int = 100_000,
        failed: @escaping @Sendable (StoreError, Int) -> Void, dropped: @escaping @Sendable (Event) -> Void
    ) {
        self.client = client
        self.maximumPending = maximumPending
        self.failed = failed
        self.dropped = dropped
        // An event's place in its batch is four hex digits of its id (``appendBatch``).
        queue = StatementBatchQueue(maximumBatch: min(maximumBatch, 0xFFFF), maximumInFlight: maximumInFlight)
    }

    /// Queues `event`; false when the queue was full and it was dropped.
    @discardableResult
    public func append(_ event: Event) -> Bool {
        guard pending.add(1, ordering: .relaxed).newValue <= maximumPending else {
            pending.subtract(1, ordering: .relaxed)
            dropped(event)
            return false
        }
        queue.enqueue(event) { [self] batch in await send(batch) }
        return true
    }

    /// Events waiting or being written.
    public var outstanding: Int { pending.load(ordering: .relaxed) }

    private func send(_ batch: [Event]) async {
        do {
            try await client.execute(Self.appendBatch, EventBatchParameters(batch).values())
        } catch {
            failed(error, batch.count)
        }
        pending.subtract(batch.count, ordering: .relaxed)
    }

    /// The events of the four arrays, in their order; an event whose reader is not the
    /// account's is left out (as ``EventStore/appendReaderEvent(_:reader:account:details:)`` does).
    /// One INSERT, nothing answered: each event reads its reader's row alone, by key (a lateral
    /// lookup, not a hash of the whole readers table per batch), and the batch's ids are
    /// `evt_` and 32 hex digits as every event's, made of the batch's time in milliseconds (12),
    /// 16 random digits drawn once per batch and the event's place in it (4; a batch holds at most
    /// 65,535): they grow with time, so each insert into the ids' unique index lands at its right
    /// edge rather than on a random page (which, after every checkpoint, wrote that page's whole
    /// image to the WAL).
    static let appendBatch = """
        WITH batch AS (
            SELECT lpad(to_hex(floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint), 12, '0')
                   || left(md5(gen_random_uuid()::text), 16) AS id_prefix
        )
        INSERT INTO events (id, account_id, type, reader_id, location_id, object)
        SELECT 'evt_' || b.id_prefix || lpad(to_hex(e.n), 4, '0'), r.account_id, e.type, r.id, r.location_id,
               e.details::jsonb || jsonb_build_object('reader', jsonb_build_object(
                   'object', 'reader', 'id', r.id, 'serial_number', r.serial_number, 'label', coalesce(r.label, ''),
                   'device_type', r.device_type, 'software_version', coalesce(r.software_version, ''),
                   'location', r.location_id, 'status', r.status
               ))
        FROM batch b, unnest($1::text[], $2::text[], $3::text[], $4::text[]) WITH ORDINALITY AS e (reader, account, type, details, n)
        CROSS JOIN LATERAL (SELECT * FROM readers r WHERE r.id = e.reader AND r.account_id = e.account OFFSET 0) r
        ORDER BY e.n
        """
}
