import GatewayCore
import GatewayPostgres

/// Attaching readers looked up by serial together: one statement for those that arrive at once.
///
/// Every attach of a reader proven by its certificate reads its row by serial first. In a
/// reconnect storm thousands arrive within seconds, each a statement of its own before its
/// attach joins a batch (``OwnershipAttachBatcher``). Lookups that arrive while `maximumInFlight`
/// are running leave together in the next statement (`serial_number = ANY`); a lone lookup goes
/// at once, as the single statement. Reads only: a batch's outcome for a serial is the single
/// lookup's (the row, or none).
public final class ReaderSerialLookupBatcher<Record: Sendable>: Sendable {
    struct Pending {
        var serial: String
        var continuation: CheckedContinuation<Result<Record?, StoreError>, Never>
    }

    private let one: @Sendable (String) async throws(StoreError) -> Record?
    private let many: @Sendable ([String]) async throws(StoreError) -> [String: Record]
    private let queue: StatementBatchQueue<Pending>

    /// - Parameters:
    ///   - one: the lookup of one serial (a lone lookup, and each of a batch that failed).
    ///   - many: the records of several serials, by serial (those registered).
    public init(
        maximumBatch: Int = 128, maximumInFlight: Int = 2,
        one: @escaping @Sendable (String) async throws(StoreError) -> Record?,
        many: @escaping @Sendable ([String]) async throws(StoreError) -> [String: Record]
    ) {
        self.one = one
        self.many = many
        queue = StatementBatchQueue(maximumBatch: maximumBatch, maximumInFlight: maximumInFlight)
    }

    /// Lookups waiting for a statement (for tests: a batch forms behind a running one).
    var waiting: Int { queue.waiting }

    /// The record registered with `serial`, if any.
    public func record(serial: String) async throws(StoreError) -> Record? {
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<Record?, StoreError>, Never>) in
            queue.enqueue(Pending(serial: serial, continuation: continuation)) { await self.send($0) }
        }
        return try result.get()
    }

    private func send(_ batch: [Pending]) async {
        if batch.count > 1 {
            do throws(StoreError) {
                let found = try await many(Array(Set(batch.map(\.serial))))
                for pending in batch { pending.continuation.resume(returning: .success(found[pending.serial])) }
                return
            } catch {
                // Each alone, as the single lookup would: its own error, or its row.
            }
        }
        for pending in batch {
            do throws(StoreError) {
                pending.continuation.resume(returning: .success(try await one(pending.serial)))
            } catch {
                pending.continuation.resume(returning: .failure(error))
            }
        }
    }
}

extension ReaderStore {
    /// The readers registered with `serials` (any account), by serial.
    public func readers(serials: [String]) async throws(StoreError) -> [String: ReaderRecord] {
        guard !serials.isEmpty else { return [:] }
        let rows = try await client.query(
            "SELECT \(Self.readerColumns) FROM readers WHERE serial_number = ANY($1::text[])",
            [PostgresValue(text: OwnershipClaimBatcher.arrayLiteral(serials))]
        )
        var found: [String: ReaderRecord] = [:]
        for row in rows {
            let record = try Self.reader(row)
            found[record.serial] = record
        }
        return found
    }
}
