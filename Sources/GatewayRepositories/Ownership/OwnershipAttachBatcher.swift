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
public final class OwnershipAttachBatcher: Sendable {
    struct Pending {
        var reader: ReaderID
        var node: String
        var continuation: CheckedContinuation<Result<(LinkEventResult, LinkEpoch?), StoreError>, Never>
    }

    let store: OwnershipStore
    private let queue: StatementBatchQueue<Pending>

    /// - Parameters:
    ///   - maximumBatch: attaches per statement at most.
    ///   - maximumInFlight: batches running at once (leave the pool room for everything else).
    public init(store: OwnershipStore, maximumBatch: Int = 128, maximumInFlight: Int = 2) {
        self.store = store
        queue = StatementBatchQueue(maximumBatch: maximumBatch, maximumInFlight: maximumInFlight)
    }

    /// The reader attached a new link on `node`, with the next epoch: like
    /// ``OwnershipStore/readerAttached(_:node:epoch:)`` with no epoch.
    public func readerAttached(_ reader: ReaderID, node: String) async throws(StoreError) -> (LinkEventResult, LinkEpoch?) {
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<(LinkEventResult, LinkEpoch?), StoreError>, Never>) in
            queue.enqueue(Pending(reader: reader, node: node, continuation: continuation)) { await self.send($0) }
        }
        return try result.get()
    }

    private func send(_ batch: [Pending]) async {
        if batch.count == 1, let only = batch.first {
            only.continuation.resume(returning: await single(only))
            return
        }
        // One node per statement: the node this replica is now (a fenced replica registers
        // under a new id; an attach still naming the old one goes alone and is refused).
        let node = batch[batch.count - 1].node
        var decided: [String: LinkEpoch?] = [:]
        do throws(StoreError) {
            let readers = PostgresValue(text: OwnershipClaimBatcher.arrayLiteral(batch.filter { $0.node == node }.map(\.reader.rawValue)))
            let rows = try await store.client.query(OwnershipStatements.readersAttached, [readers, PostgresValue(node)])
            for row in rows {
                guard try row.decode(String.self, "outcome") == "updated" else { continue }
                decided[try row.decode(String.self, "reader_id")] = try row.decode(Int64?.self, "link_epoch").map(LinkEpoch.init)
            }
        } catch {
            store.logger.warning("attach batch failed, attaching its readers one by one", ["readers": batch.count, "error": error])
        }
        for pending in batch {
            if pending.node == node, let epoch = decided[pending.reader.rawValue] {
                pending.continuation.resume(returning: .success((.updated, epoch)))
            } else {
                // Not updated by the batch: the single path decides it and says why.
                pending.continuation.resume(returning: await single(pending))
            }
        }
    }

    private func single(_ pending: Pending) async -> Result<(LinkEventResult, LinkEpoch?), StoreError> {
        do throws(StoreError) {
            return .success(try await store.readerAttached(pending.reader, node: pending.node))
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
    /// statement tells which).
    static let readersAttached = """
        WITH node AS (
            SELECT n.node_id FROM gateway_nodes n WHERE n.node_id = $2::text FOR KEY SHARE
        ), wanted AS (
            SELECT DISTINCT unnest($1::text[]) AS reader_id
        ), link AS (
            SELECT o.reader_id, o.link_epoch
            FROM reader_ownership o JOIN wanted w ON w.reader_id = o.reader_id
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
        )
        SELECT w.reader_id, CASE WHEN u.reader_id IS NOT NULL THEN 'updated' ELSE 'not_updated' END AS outcome, u.link_epoch
        FROM wanted w LEFT JOIN updated u ON u.reader_id = w.reader_id
        """
}
