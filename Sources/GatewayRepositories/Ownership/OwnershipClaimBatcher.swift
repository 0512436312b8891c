import GatewayCore
import GatewayDomain
import GatewayPostgres

/// Claims from concurrent callers gathered into one statement and one commit.
///
/// Each claim is its own transaction when sent alone, so a connection commits its claims one
/// after the other, however deeply they are pipelined: with few connections, the commit (a WAL
/// flush) bounds the rate. The batcher lets up to `maximumInFlight` batches run at once; claims
/// that arrive meanwhile wait and leave together in the next batch, decided in one transaction
/// by ``OwnershipStatements/claimBatch``: the rules of a single claim written over the whole
/// set. A batch never names a reader twice: a reader's later claim waits for the next batch,
/// so it is decided on the row its predecessor left, as single claims made in that order are.
///
/// A connect's claim (``claim(_:_:readingRecordOf:)``) also gets its reader's row for the
/// answer in the same statement, as ``OwnershipStore/claim(_:_:readingRecordOf:)`` does alone:
/// one round trip per batch. A batch of one is sent as that single statement.
///
/// If a batch fails (for example one claim names a session that does not exist), its claims
/// are retried one by one, so one bad claim cannot fail the others.
public final class OwnershipClaimBatcher: Sendable {
    /// One claim as a batch carries it: `account` set when the caller wants the reader's row.
    struct Claim: Sendable {
        var reader: ReaderID
        var request: ConnectRequest
        var account: String?
    }

    typealias Decision = (result: ConnectResult, record: ReaderRecord?)

    struct Pending: Sendable {
        var claim: Claim
        var continuation: CheckedContinuation<Result<Decision, StoreError>, Never>
    }

    let store: OwnershipStore
    private let queue: StatementBatchQueue<Pending>

    /// - Parameters:
    ///   - maximumBatch: claims per statement at most.
    ///   - maximumInFlight: batches running at once (about the store client's connections: each
    ///     batch holds one connection's commit).
    public init(store: OwnershipStore, maximumBatch: Int = 64, maximumInFlight: Int = 8) {
        self.store = store
        queue = StatementBatchQueue(maximumBatch: maximumBatch, maximumInFlight: maximumInFlight, distinctBy: { $0.claim.reader.rawValue })
    }

    /// Decides a connect request, like ``OwnershipStore/claim(_:_:)``.
    public func claim(_ reader: ReaderID, _ request: ConnectRequest) async throws(StoreError) -> ConnectResult {
        try await decide(Claim(reader: reader, request: request, account: nil)).result
    }

    /// Decides a connect request and reads the reader's row for the answer, like
    /// ``OwnershipStore/claim(_:_:readingRecordOf:)``: the record is nil when the reader is not
    /// `account`'s.
    public func claim(
        _ reader: ReaderID, _ request: ConnectRequest, readingRecordOf account: String
    ) async throws(StoreError) -> (result: ConnectResult, record: ReaderRecord?) {
        try await decide(Claim(reader: reader, request: request, account: account))
    }

    private func decide(_ claim: Claim) async throws(StoreError) -> Decision {
        // Alone (a free slot, nobody waiting): sent from the caller's task as a batch of one.
        if queue.reserveAlone() {
            let result = await Self.single(store, claim)
            queue.releaseAlone { await self.send($0) }
            return try result.get()
        }
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<Decision, StoreError>, Never>) in
            queue.enqueue(Pending(claim: claim, continuation: continuation)) { await self.send($0) }
        }
        return try result.get()
    }

    private func send(_ batch: [Pending]) async {
        if batch.count == 1, let only = batch.first {
            only.continuation.resume(returning: await Self.single(store, only.claim))
            return
        }
        let decisions = await Self.decide(store, batch.map(\.claim))
        for (pending, decision) in zip(batch, decisions) { pending.continuation.resume(returning: decision) }
    }

    /// Decides `claims` as single claims made in the order given would be: claims on distinct
    /// readers together in one statement (``decideTogether(_:_:)``), a reader's later claims in
    /// later statements (the queue already keeps them apart, so this is one statement but for
    /// callers that did not). If a statement fails, its claims are retried one by one, so one
    /// bad claim cannot fail the others.
    static func decide(_ store: OwnershipStore, _ claims: [Claim]) async -> [Result<Decision, StoreError>] {
        var decisions = [Result<Decision, StoreError>?](repeating: nil, count: claims.count)
        for round in rounds(claims.map(\.reader)) {
            let together = round.map { claims[$0] }
            do throws(StoreError) {
                for (index, decision) in zip(round, try await decideTogether(store, together)) { decisions[index] = decision }
            } catch {
                store.logger.warning("claim batch failed, retrying its claims one by one", ["claims": round.count, "error": error])
                for index in round { decisions[index] = await single(store, claims[index]) }
            }
        }
        return decisions.map { $0! }
    }

    /// The claims' positions split into rounds in which no reader appears twice: each claim
    /// goes in the first round after its reader's previous claim, so a reader's claims keep
    /// their order.
    static func rounds(_ readers: [ReaderID]) -> [[Int]] {
        var rounds: [[Int]] = []
        var nextRound: [ReaderID: Int] = [:]
        for (index, reader) in readers.enumerated() {
            let round = nextRound[reader, default: 0]
            if round == rounds.count { rounds.append([]) }
            rounds[round].append(index)
            nextRound[reader] = round + 1
        }
        return rounds
    }

    /// Sends `claims`, on distinct readers, as one statement (one transaction,
    /// ``OwnershipStatements/claimBatch``). Throws when the statement fails (then nothing of it
    /// committed; a reader named twice fails it); a claim's row that does not decode fails that
    /// claim alone.
    static func decideTogether(_ store: OwnershipStore, _ claims: [Claim]) async throws(StoreError) -> [Result<Decision, StoreError>] {
        let parameters = claims.map { OwnershipStore.claimParameters($0.reader, $0.request) }
        var columns = (0..<6).map { column in PostgresValue(text: arrayLiteral(parameters.map { $0[column] })) }
        columns.append(PostgresValue(text: arrayLiteral(claims.map(\.account))))
        let rows = try await store.client.query(OwnershipStatements.claimBatch, columns)
        var decisions = [Result<Decision, StoreError>?](repeating: nil, count: claims.count)
        for row in rows {
            let index = try row.decode(Int.self, "claim_index") - 1
            guard claims.indices.contains(index) else { continue }
            let claim = claims[index]
            decisions[index] = Result { () throws(StoreError) -> Decision in
                let result = try store.decodeClaim(row, reader: claim.reader, request: claim.request)
                guard claim.account != nil, try row.decode(String?.self, "id") != nil else { return (result, nil) }
                return (result, try ReaderStore.reader(row))
            }
        }
        return decisions.map { $0 ?? .failure(StoreError(.decodingFailed, "the claim batch returned no row for a claim")) }
    }

    private static func single(_ store: OwnershipStore, _ claim: Claim) async -> Result<Decision, StoreError> {
        do throws(StoreError) {
            guard let account = claim.account else { return .success((try await store.claim(claim.reader, claim.request), nil)) }
            return .success(try await store.claim(claim.reader, claim.request, readingRecordOf: account))
        } catch {
            return .failure(error)
        }
    }

    /// A one-dimensional array in PostgreSQL's text form, every element quoted. Built on UTF-8
    /// bytes: the two characters escaped (`"` and `\`) are ASCII, so no other byte of a UTF-8
    /// text can be taken for them (walking `Character`s cost about 40,000 instructions a
    /// connect in a batch of three).
    static func arrayLiteral(_ elements: [String?]) -> String {
        var bytes: [UInt8] = [UInt8(ascii: "{")]
        bytes.reserveCapacity(2 + elements.reduce(0) { $0 + 3 + ($1?.utf8.count ?? 4) })
        for (index, element) in elements.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            guard let element else {
                bytes.append(contentsOf: "NULL".utf8)
                continue
            }
            bytes.append(UInt8(ascii: "\""))
            for byte in element.utf8 {
                if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { bytes.append(UInt8(ascii: "\\")) }
                bytes.append(byte)
            }
            bytes.append(UInt8(ascii: "\""))
        }
        bytes.append(UInt8(ascii: "}"))
        return String(decoding: bytes, as: UTF8.self)
    }
}
