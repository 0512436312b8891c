import GatewayCore

/// The pool: which connection runs the next statement, when to open another,
/// what happens when one breaks. Engine state: called with the engine lock held.
extension PostgresStoreLoop {
    /// The statement every new connection runs first, so that `timestamptz`
    /// text is ISO in UTC whatever the server's defaults are.
    static let sessionSetup = "SELECT set_config('TimeZone', 'UTC', false), set_config('DateStyle', 'ISO, MDY', false)"

    /// The least-loaded ready pool connection that no transaction holds.
    private func leastLoadedConnection() -> PostgresConnection? {
        var best: PostgresConnection?
        for connection in connections.values
        where connection.role == .pool && connection.state == .ready && !connection.isPinned {
            if best == nil || connection.inflightCount < best!.inflightCount { best = connection }
        }
        return best
    }

    /// Hands waiting work to connections, opening new ones while there is demand.
    func dispatch() {
        while !waitingAcquires.isEmpty {
            guard let connection = leastLoadedConnection() else {
                openConnectionsIfNeeded(demand: waitingAcquires.count)
                break
            }
            connection.isPinned = true
            let waiting = waitingAcquires.removeFirst()
            waiting.value(.success(connection.id))
        }
        while waitingStatementsHead < waitingStatements.count {
            let best = leastLoadedConnection()
            if best == nil || best!.inflightCount > 0 {
                openConnectionsIfNeeded(demand: waitingStatements.count - waitingStatementsHead)
            }
            guard let connection = best, connection.inflightCount < configuration.pipelineDepth else { break }
            let statement = waitingStatements[waitingStatementsHead].value
            waitingStatementsHead += 1
            if connection.send(statement) {
                updateInterest(connection)
            } else {
                connectionBroke(connection, input: connection.breakConnection(ConnectionInput()), pendingStatement: statement)
            }
        }
        if waitingStatementsHead == waitingStatements.count {
            waitingStatements.removeAll(keepingCapacity: true)
            waitingStatementsHead = 0
        } else if waitingStatementsHead > 1024, waitingStatementsHead * 2 > waitingStatements.count {
            waitingStatements.removeFirst(waitingStatementsHead)
            waitingStatementsHead = 0
        }
    }

    /// Opens pool connections up to the maximum while connecting ones are fewer than the waiting work.
    ///
    /// Only the store thread opens connections: `PQconnectStartParams` may
    /// resolve a host name, which blocks, and a caller's thread must not block.
    private func openConnectionsIfNeeded(demand: Int) {
        guard runningOnStoreThread else {
            needsStoreThread = true
            return
        }
        var poolCount = 0
        var connecting = 0
        for connection in connections.values where connection.role == .pool {
            poolCount += 1
            if connection.state == .connecting { connecting += 1 }
        }
        guard poolCount < configuration.maximumConnections, connecting < demand else { return }
        startConnection(role: .pool)
    }

    /// Starts one non-blocking connection attempt.
    @discardableResult
    func startConnection(role: PostgresConnection.Role) -> PostgresConnection? {
        let id = ConnectionID(raw: nextConnectionID)
        nextConnectionID += 1
        switch PostgresConnection.start(id: id, role: role, configuration: configuration, logger: logger) {
        case .success(let connection):
            connections[id.raw] = connection
            advanceConnect(connection)
            return connections[id.raw]
        case .failure(let error):
            connectFailed(error, role: role)
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
            let setup = Statement(sql: Self.sessionSetup, parameters: []) { [logger] result in
                if case .failure(let error) = result {
                    logger.warning("session setup failed; timestamps may not decode", ["error": error.description])
                }
            }
            if !connection.send(setup) {
                connectionBroke(connection, input: connection.breakConnection(ConnectionInput()))
                return
            }
            updateInterest(connection)
            if connection.role == .listener { listenerBecameReady(connection) }
        case .failed(let error):
            removeConnection(connection)
            connectFailed(error, role: connection.role)
        }
    }

    /// A connection attempt failed: when no other pool connection can serve
    /// the waiting work, fail it now rather than let it wait for nothing.
    private func connectFailed(_ error: StoreError, role: PostgresConnection.Role) {
        logger.warning("cannot connect to PostgreSQL", ["error": error.description])
        if role == .listener {
            listenerConnectFailed(error)
            return
        }
        let alive = connections.values.contains { $0.role == .pool && $0.state != .closed }
        guard !alive else { return }
        for index in waitingStatementsHead..<waitingStatements.count {
            waitingStatements[index].value.completion(.failure(error))
        }
        waitingStatements.removeAll(keepingCapacity: true)
        waitingStatementsHead = 0
        let acquires = waitingAcquires
        waitingAcquires.removeAll()
        for waiting in acquires { waiting.value(.failure(error)) }
    }

    /// A ready connection broke: its statements fail (retryably), it is
    /// dropped, and the next demand opens a fresh one.
    func connectionBroke(_ connection: PostgresConnection, input: ConnectionInput, pendingStatement: Statement? = nil) {
        logger.warning("lost a connection to PostgreSQL; it will be replaced", [
            "connection": connection.id, "error": input.failure?.underlying ?? "",
        ])
        removeConnection(connection)
        deliver(input)
        if let pendingStatement, let failure = input.failure { pendingStatement.completion(.failure(failure)) }
        if connection.role == .listener { listenerBroke() }
    }

    /// Fails work that waited longer than ``PostgresConfiguration/connectionWaitTimeout``.
    func expireWaiting(now: ContinuousClock.Instant) {
        let error = StoreError(
            .timeout,
            "no database connection became free within \(configuration.connectionWaitTimeout); the pool is saturated or transactions are held too long"
        )
        while waitingStatementsHead < waitingStatements.count, waitingStatements[waitingStatementsHead].deadline <= now {
            waitingStatements[waitingStatementsHead].value.completion(.failure(error))
            waitingStatementsHead += 1
        }
        while let first = waitingAcquires.first, first.deadline <= now {
            waitingAcquires.removeFirst()
            first.value(.failure(error))
        }
        if listener.retryAt.map({ $0 <= now }) ?? false {
            listener.retryAt = nil
            ensureListener()
        }
    }
}
