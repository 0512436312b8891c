import GatewayCore

/// Carrying out the pool's decisions (``PoolStateMachine``): opening
/// connections, sending statements, pinning, failing. Engine state: called
/// with the engine lock held.
extension PostgresStoreLoop {
    typealias AcquireCompletion = @Sendable (Result<ConnectionID, StoreError>) -> Void

    /// The statement every new connection runs first, so that `timestamptz`
    /// text is ISO in UTC whatever the server's defaults are.
    static let sessionSetup = "SELECT set_config('TimeZone', 'UTC', false), set_config('DateStyle', 'ISO, MDY', false)"

    /// Hands waiting work to connections. Only the store thread opens
    /// connections: `PQconnectStartParams` may resolve a host name, which
    /// blocks, and a caller's thread must not block.
    func dispatch() {
        perform(pool.dispatch(mayOpen: runningOnStoreThread))
    }

    /// Carries out what the pool decided.
    func perform(_ actions: PoolStateMachine<Statement, AcquireCompletion>.Actions) {
        if actions.openDeferred { needsStoreThread = true }
        for id in actions.open { startConnection(id: id, role: .pool) }
        for id in actions.close {
            if let connection = connections[id.raw] {
                logger.debug("closing a connection returned from a transaction that did not end cleanly", ["connection": id])
                removeConnection(connection)
            }
        }
        for (statement, id) in actions.send {
            guard let connection = connections[id.raw], connection.send(statement) else {
                let error = StoreError(.connectionLost, "the connection broke before the statement was sent; run it again")
                if let connection = connections[id.raw] {
                    connectionBroke(connection, input: connection.breakConnection(ConnectionInput()), pendingStatement: statement)
                } else {
                    statement.completion(.failure(error))
                }
                continue
            }
            updateInterest(connection)
        }
        for (acquirer, id) in actions.pin { acquirer(.success(id)) }
        if let failure = actions.failure {
            for statement in actions.failedRequests { statement.completion(.failure(failure)) }
            for acquirer in actions.failedAcquirers { acquirer(.failure(failure)) }
        }
    }

    /// Starts one non-blocking connection attempt.
    @discardableResult
    func startConnection(id: ConnectionID, role: PostgresConnection.Role) -> PostgresConnection? {
        switch PostgresConnection.start(id: id, role: role, configuration: configuration, logger: logger) {
        case .success(let connection):
            connections[id.raw] = connection
            advanceConnect(connection)
            return connections[id.raw]
        case .failure(let error):
            connectFailed(id, error: error, role: role)
            return nil
        }
    }

    /// Moves a connecting connection on after its socket became ready.
    func advanceConnect(_ connection: PostgresConnection) {
        switch connection.pollConnect(description: configuration.redactedDescription) {
        case .waitReadable, .waitWritable:
            updateInterest(connection)
        case .ready:
            logger.debug("connected to PostgreSQL", ["connection": connection.id, "role": "\(connection.role)"])
            if connection.role == .pool { pool.connectionReady(connection.id) }
            let setup = Statement(sql: Self.sessionSetup, parameters: []) { [logger] result in
                if case .failure(let error) = result {
                    logger.warning("session setup failed; timestamps may not decode", ["error": error.description])
                }
            }
            guard connection.send(setup) else {
                connectionBroke(connection, input: connection.breakConnection(ConnectionInput()))
                return
            }
            pool.sent(on: connection.id)
            updateInterest(connection)
            if connection.role == .listener { listenerBecameReady(connection) }
        case .failed(let error):
            connections[connection.id.raw] = nil
            unregister(connection)
            connection.close()
            connectFailed(connection.id, error: error, role: connection.role)
        }
    }

    /// A connection attempt failed: when no other pool connection can serve
    /// the waiting work, it fails now rather than wait for nothing.
    private func connectFailed(_ id: ConnectionID, error: StoreError, role: PostgresConnection.Role) {
        logger.warning("cannot connect to PostgreSQL", ["error": error.description])
        if role == .listener {
            listenerConnectFailed(error)
        } else {
            perform(pool.connectFailed(id, error: error))
        }
    }

    /// A ready connection broke: its statements fail (retryably), it is
    /// dropped, and the next demand opens a fresh one.
    func connectionBroke(_ connection: PostgresConnection, input: ConnectionInput, pendingStatement: Statement? = nil) {
        logger.warning("lost a connection to PostgreSQL; it will be replaced", [
            "connection": connection.id, "error": input.failure?.underlying ?? "",
        ])
        removeConnection(connection)
        deliver(input, from: connection)
        if let pendingStatement, let failure = input.failure { pendingStatement.completion(.failure(failure)) }
        if connection.role == .listener { listenerBroke() }
    }

    /// Fails work that waited longer than ``PostgresConfiguration/connectionWaitTimeout``.
    func expireWaiting(now: ContinuousClock.Instant) {
        if let deadline = pool.earliestDeadline, deadline <= now {
            perform(pool.expire(now: now, error: StoreError(
                .timeout,
                "no database connection became free within \(configuration.connectionWaitTimeout); the pool is saturated or transactions are held too long"
            )))
        }
        if listener.retryAt.map({ $0 <= now }) ?? false {
            listener.retryAt = nil
            ensureListener()
        }
    }
}
