import GatewayCore

/// How strictly a transaction is isolated from concurrent ones.
public enum TransactionIsolation: String, Sendable {
    case readCommitted = "READ COMMITTED"
    case repeatableRead = "REPEATABLE READ"
    case serializable = "SERIALIZABLE"
}

/// Statements inside one transaction, all on the connection pinned for it.
///
/// Valid only inside the `withTransaction` body that received it.
public struct PostgresTransaction: Sendable {
    let client: PostgresClient
    let connection: ConnectionID

    /// Runs one statement in the transaction and returns its rows.
    public func query(_ sql: String, _ parameters: [PostgresValue?] = []) async throws(StoreError) -> PostgresRows {
        try await client.run(sql, parameters, pinnedTo: connection)
    }

    /// Runs one statement in the transaction and returns how many rows it affected.
    @discardableResult
    public func execute(_ sql: String, _ parameters: [PostgresValue?] = []) async throws(StoreError) -> Int {
        try await client.run(sql, parameters, pinnedTo: connection).affectedRows
    }
}

extension PostgresClient {
    /// Runs `body` in a transaction on one pinned connection: `COMMIT` when it
    /// returns, `ROLLBACK` when it throws (the body's error is rethrown).
    ///
    /// A failed `COMMIT` throws its ``StoreError`` (a serialization failure
    /// is ``StoreError/Code/serializationFailure``: run the whole transaction
    /// again). The connection goes back to the pool afterwards, or is closed
    /// when the transaction did not end cleanly.
    @discardableResult
    public func withTransaction<T: Sendable>(
        isolationLevel level: TransactionIsolation = .readCommitted,
        isolation actor: isolated (any Actor)? = #isolation,
        _ body: (PostgresTransaction) async throws -> T
    ) async throws -> T {
        let connection = try await acquire()
        let transaction = PostgresTransaction(client: self, connection: connection)
        do {
            try await transaction.execute(level == .readCommitted ? "BEGIN" : "BEGIN ISOLATION LEVEL \(level.rawValue)")
        } catch {
            loop.submit(.release(connection, discard: true))
            throw error
        }
        let value: T
        do {
            value = try await body(transaction)
        } catch {
            var clean = true
            do { try await transaction.execute("ROLLBACK") } catch { clean = false }
            loop.submit(.release(connection, discard: !clean))
            throw error
        }
        do {
            try await transaction.execute("COMMIT")
        } catch {
            loop.submit(.release(connection, discard: true))
            throw error
        }
        loop.submit(.release(connection, discard: false))
        return value
    }

    private func acquire() async throws(StoreError) -> ConnectionID {
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<ConnectionID, StoreError>, Never>) in
            loop.submit(.acquire { continuation.resume(returning: $0) })
        }
        return try result.get()
    }
}
