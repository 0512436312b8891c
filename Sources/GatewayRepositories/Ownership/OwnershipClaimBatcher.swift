import GatewayCore
import GatewayDomain
import GatewayPostgres

/// Claims from concurrent callers gathered into one statement and one commit.
///
/// Each claim is its own transaction when sent alone, so a connection commits its claims one
/// after the other, however deeply they are pipelined: with few connections, the commit (a WAL
/// flush) bounds the rate. The batcher lets up to `maximumInFlight` batches run at once; claims
/// that arrive meanwhile wait and leave together in the next batch, decided in reader order by
/// `ownership_claim_batch` within one transaction. The decisions are exactly those of single
/// claims made in that order (same function, same rules); only the commit is shared.
///
/// If a batch fails (for example one claim names a session that does not exist), its claims
/// are retried one by one, so one bad claim cannot fail the others.
public final class OwnershipClaimBatcher: Sendable {
    struct Pending {
        var reader: ReaderID
        var request: ConnectRequest
        var continuation: CheckedContinuation<Result<ConnectResult, StoreError>, Never>
    }

    let store: OwnershipStore
    private let queue: StatementBatchQueue<Pending>

    /// - Parameters:
    ///   - maximumBatch: claims per statement at most.
    ///   - maximumInFlight: batches running at once (about the store client's connections).
    public init(store: OwnershipStore, maximumBatch: Int = 64, maximumInFlight: Int = 8) {
        self.store = store
        queue = StatementBatchQueue(maximumBatch: maximumBatch, maximumInFlight: maximumInFlight)
    }

    /// Decides a connect request, like ``OwnershipStore/claim(_:_:)``.
    public func claim(_ reader: ReaderID, _ request: ConnectRequest) async throws(StoreError) -> ConnectResult {
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<ConnectResult, StoreError>, Never>) in
            queue.enqueue(Pending(reader: reader, request: request, continuation: continuation)) { await self.send($0) }
        }
        return try result.get()
    }

    private func send(_ batch: [Pending]) async {
        if batch.count == 1, let only = batch.first {
            only.continuation.resume(returning: await Self.single(store, only))
            return
        }
        do throws(StoreError) {
            let columns = (0..<6).map { column in
                PostgresValue(text: Self.arrayLiteral(batch.map { OwnershipStore.claimParameters($0.reader, $0.request)[column] }))
            }
            let rows = try await store.client.query(OwnershipStatements.claimBatch, columns)
            var results = [Result<ConnectResult, StoreError>?](repeating: nil, count: batch.count)
            for row in rows {
                let index = try row.decode(Int.self, "claim_index") - 1
                guard batch.indices.contains(index) else { continue }
                results[index] = Result { () throws(StoreError) in
                    try store.decodeClaim(row, reader: batch[index].reader, request: batch[index].request)
                }
            }
            for (pending, result) in zip(batch, results) {
                pending.continuation.resume(
                    returning: result ?? .failure(StoreError(.decodingFailed, "the claim batch returned no row for a claim; check migration 0002"))
                )
            }
        } catch {
            store.logger.warning("claim batch failed, retrying its claims one by one", ["claims": batch.count, "error": error])
            for pending in batch { pending.continuation.resume(returning: await Self.single(store, pending)) }
        }
    }

    private static func single(_ store: OwnershipStore, _ pending: Pending) async -> Result<ConnectResult, StoreError> {
        do throws(StoreError) {
            return .success(try await store.claim(pending.reader, pending.request))
        } catch {
            return .failure(error)
        }
    }

    /// A one-dimensional array in PostgreSQL's text form, every element quoted.
    static func arrayLiteral(_ elements: [String?]) -> String {
        var text = "{"
        for (index, element) in elements.enumerated() {
            if index > 0 { text += "," }
            guard let element else {
                text += "NULL"
                continue
            }
            text += "\""
            for character in element {
                if character == "\"" || character == "\\" { text += "\\" }
                text.append(character)
            }
            text += "\""
        }
        return text + "}"
    }
}
