import GatewayCore
import GatewayDomain
import GatewayPostgres

/// Reader attaches on one node gathered into one statement and one commit.
///
/// After a replica dies, thousands of its readers attach to the survivors within seconds.
/// Each attach alone is a transaction whose commit also queues the ownership NOTIFY, and
/// PostgreSQL serializes the commits of notifying transactions: one attach per commit bounds
/// the storm by the WAL flush. The batcher lets up to `maximumInFlight` batches run at once;
/// attaches that arrive meanwhile leave together in the next one (no waiting when it is
/// quiet: a lone attach goes at once, as before). A batch locks its readers' rows in reader
/// order after the node row (the order `gateway_nodes_remove` takes too) and decides each as
/// ``OwnershipStore/readerAttached(_:node:epoch:)`` would; a reader the batch did not update
/// (its first attach, without an ownership row yet, or one that is not registered) and every
/// reader of a batch that failed goes through that single path, so the outcomes are the same.
/// A batch names a reader once: a reader's second link attaching while its first link's attach
/// waits leaves in a later batch, so each link gets an epoch of its own, the later link the
/// higher (in one statement both would be told the same epoch, and the first link's end would
/// then take the reader offline under the second).
///
/// A link's first battery level (its hello's) is recorded by the same statement when the
/// attach asks for it (``Attach/batteryLevel``): a re-attach is then one write and one commit,
/// not two. A reader the batch did not update has its level not recorded
/// (``Attached/batteryRecorded`` false): the caller records it as before.
public final class OwnershipAttachBatcher: Sendable {
    /// What an attach records besides the link: the battery level its hello reported (nil
    /// inside: the reader reported none, recorded as none).
    public struct BatteryReport: Sendable, Hashable {
        public var level: Float?
        public init(level: Float?) { self.level = level }
    }

    /// An attach's outcome: as ``OwnershipStore/readerAttached(_:node:epoch:)``'s, and whether
    /// the battery level asked for was recorded with it.
    public struct Attached: Sendable {
        public var result: LinkEventResult
        public var epoch: LinkEpoch?
        public var batteryRecorded: Bool
    }

    struct Pending {
        var reader: ReaderID
        var node: String
        var battery: BatteryReport?
        var continuation: CheckedContinuation<Result<Attached, StoreError>, Never>
    }

    let store: OwnershipStore
    private let queue: StatementBatchQueue<Pending>

    /// - Parameters:
    ///   - maximumBatch: attaches per statement at most.
    ///   - maximumInFlight: batches running at once (leave the pool room for everything else).
    public init(store: OwnershipStore, maximumBatch: Int = 128, maximumInFlight: Int = 2) {
        self.store = store
        queue = StatementBatchQueue(maximumBatch: maximumBatch, maximumInFlight: maximumInFlight, distinctBy: { $0.reader.rawValue })
    }

    /// Attaches waiting for a batch (for tests: a batch forms behind a running one).
    var waiting: Int { queue.waiting }

    /// The reader attached a new link on `node`, with the next epoch: like
    /// ``OwnershipStore/readerAttached(_:node:epoch:)`` with no epoch. With `battery`, its level
    /// is recorded (`reader_update_status`) in the same statement when the batch updates the
    /// reader's row.
    public func readerAttached(_ reader: ReaderID, node: String, battery: BatteryReport? = nil) async throws(StoreError) -> Attached {
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<Attached, StoreError>, Never>) in
            queue.enqueue(Pending(reader: reader, node: node, battery: battery, continuation: continuation)) { await self.send($0) }
        }
        return try result.get()
    }

    private func send(_ batch: [Pending]) async {
        // One node per statement: the node this replica is now (a fenced replica registers
        // under a new id; an attach still naming the old one goes alone and is refused).
        // A lone attach runs the batch statement too (one statement either way), so that its
        // battery level goes with it.
        let node = batch[batch.count - 1].node
        let sent = batch.filter { $0.node == node }
        var decided: [String: LinkEpoch?] = [:]
        do throws(StoreError) {
            let readers = PostgresValue(text: OwnershipClaimBatcher.arrayLiteral(sent.map(\.reader.rawValue)))
            let levels = PostgresValue(text: OwnershipClaimBatcher.arrayLiteral(sent.map { $0.battery?.level.map { String($0) } }))
            let recorded = PostgresValue(text: OwnershipClaimBatcher.arrayLiteral(sent.map { $0.battery == nil ? "f" : "t" }))
            let rows = try await store.client.query(OwnershipStatements.readersAttached, [readers, PostgresValue(node), levels, recorded])
            for row in rows {
                guard try row.decode(String.self, "outcome") == "updated" else { continue }
                decided[try row.decode(String.self, "reader_id")] = try row.decode(Int64?.self, "link_epoch").map(LinkEpoch.init)
            }
        } catch {
            store.logger.warning("attach batch failed, attaching its readers one by one", ["readers": batch.count, "error": error])
        }
        for pending in batch {
            if pending.node == node, let epoch = decided[pending.reader.rawValue] {
                pending.continuation.resume(returning: .success(Attached(result: .updated, epoch: epoch, batteryRecorded: pending.battery != nil)))
            } else {
                // Not updated by the batch: the single path decides it and says why.
                pending.continuation.resume(returning: await single(pending))
            }
        }
    }

    private func single(_ pending: Pending) async -> Result<Attached, StoreError> {
        do throws(StoreError) {
            let (result, epoch) = try await store.readerAttached(pending.reader, node: pending.node)
            return .success(Attached(result: result, epoch: epoch, batteryRecorded: false))
        } catch {
            return .failure(error)
        }
    }
}

extension OwnershipStatements {
    /// Readers `$1` (an array) attached new links on node `$2`, each with its next epoch, in one
    /// transaction: ``readerAttached`` for many. The node's row is locked first, then the
    /// readers' rows in reader order. One row per reader: `updated` with the new epoch, or
    /// `not_updated` (no ownership row, not registered, or the node is gone: the single
    /// statement tells which). `$3` (real, nulls allowed) and `$4` (boolean) run beside `$1`: an
    /// updated reader whose `$4` is true has its battery level `$3` recorded (the batcher names
    /// a reader once; were it named twice, its last entry); its `reader_update_status` row is
    /// locked after its ownership row, so batches that share readers wait for each other in
    /// reader order.
    static let readersAttached = """
        WITH node AS (
            SELECT n.node_id FROM gateway_nodes n WHERE n.node_id = $2::text FOR KEY SHARE
        ), reported AS (
            SELECT DISTINCT ON (r.reader_id) r.reader_id, r.level, r.recorded
            FROM unnest($1::text[], $3::real[], $4::boolean[]) WITH ORDINALITY AS r (reader_id, level, recorded, n)
            ORDER BY r.reader_id, r.n DESC
        ), link AS (
            SELECT o.reader_id, o.link_epoch
            FROM reader_ownership o JOIN reported w ON w.reader_id = o.reader_id
            WHERE EXISTS (SELECT 1 FROM node)
            ORDER BY o.reader_id
            FOR UPDATE OF o
        ), updated AS (
            UPDATE reader_ownership o
            SET online = true, link_epoch = l.link_epoch + 1, link_node = $2::text, link_detached_at = NULL
            FROM link l
            WHERE o.reader_id = l.reader_id
            RETURNING o.reader_id, o.link_epoch
        ), status AS (
            UPDATE readers r SET status = 'online', last_seen_at = now()
            FROM updated u
            WHERE r.id = u.reader_id
        ), battery AS (
            INSERT INTO reader_update_status AS s (reader_id, battery_level, battery_reported_at)
            SELECT u.reader_id, w.level, now() FROM updated u JOIN reported w ON w.reader_id = u.reader_id
            WHERE w.recorded
            ORDER BY u.reader_id
            ON CONFLICT (reader_id) DO UPDATE SET battery_level = EXCLUDED.battery_level, battery_reported_at = EXCLUDED.battery_reported_at
        )
        SELECT w.reader_id, CASE WHEN u.reader_id IS NOT NULL THEN 'updated' ELSE 'not_updated' END AS outcome, u.link_epoch
        FROM reported w LEFT JOIN updated u ON u.reader_id = w.reader_id
        """
}
