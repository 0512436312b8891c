/// The pool's decisions, without I/O: which ready connection runs each
/// waiting statement, which connection a transaction pins, when to open
/// another connection, and what fails when connecting is hopeless or a wait
/// runs out.
///
/// Generic over what a statement (`Request`) and a transaction waiting for a
/// connection (`Acquirer`) are, so tests drive it with plain values. The I/O
/// shell (``PostgresStoreLoop``) reports every event and carries out the
/// returned ``Actions``.
///
/// Besides the pool, one **reserved** connection serves only reserved requests (the node
/// heartbeat): work that must not wait behind a saturated pool. It is opened on the first
/// reserved request, does not count against ``maximumConnections``, never takes pool
/// statements or transactions, and reserved requests never use pool connections.
struct PoolStateMachine<Request, Acquirer> {
    /// One pool connection as the machine sees it.
    struct Connection: Equatable {
        enum State: Equatable {
            /// Opening; cannot take statements yet.
            case connecting
            /// Open and in pipeline mode.
            case ready
        }
        var state: State
        /// Statements sent and not yet finished.
        var inflight = 0
        /// Held by a transaction: gets no pool statements.
        var pinned = false
        /// The reserved connection: takes reserved requests only.
        var reserved = false
    }

    /// What the shell must do after an event, in this order: open, close,
    /// send, pin, fail.
    struct Actions {
        /// Start a connection attempt for each id.
        var open: [ConnectionID] = []
        /// Opening is needed but was not allowed here (only the store thread opens).
        var openDeferred = false
        /// Close these connections (failing whatever is in flight on them).
        var close: [ConnectionID] = []
        /// Send each request on its connection (already counted in flight).
        var send: [(Request, ConnectionID)] = []
        /// Give each waiting transaction its pinned connection.
        var pin: [(Acquirer, ConnectionID)] = []
        /// Fail these requests and acquirers with `failure`.
        var failedRequests: [Request] = []
        var failedAcquirers: [Acquirer] = []
        var failure: StoreError?
    }

    let maximumConnections: Int
    let pipelineDepth: Int
    private(set) var connections: [ConnectionID: Connection] = [:]
    private var requests: [(request: Request, deadline: ContinuousClock.Instant)] = []
    private var requestsHead = 0
    private var reservedRequests: [(request: Request, deadline: ContinuousClock.Instant)] = []
    private var acquirers: [(acquirer: Acquirer, deadline: ContinuousClock.Instant)] = []
    private var nextID = 1

    init(maximumConnections: Int, pipelineDepth: Int) {
        self.maximumConnections = maximumConnections
        self.pipelineDepth = pipelineDepth
    }

    /// Requests waiting for a connection.
    var waitingRequests: Int { requests.count - requestsHead }
    /// Reserved requests waiting for the reserved connection.
    var waitingReservedRequests: Int { reservedRequests.count }
    /// Transactions waiting for a connection.
    var waitingAcquirers: Int { acquirers.count }
    /// The pool's connections and waiters now (the reserved connection is not counted).
    var statistics: PoolStatistics {
        var statistics = PoolStatistics(maximumConnections: maximumConnections)
        for connection in connections.values where !connection.reserved && connection.state == .ready {
            if connection.pinned || connection.inflight > 0 { statistics.inUse += 1 } else { statistics.idle += 1 }
        }
        statistics.waiting = waitingRequests + waitingAcquirers
        return statistics
    }

    /// When the oldest waiting work times out.
    var earliestDeadline: ContinuousClock.Instant? {
        let request = requestsHead < requests.count ? requests[requestsHead].deadline : nil
        return [request, acquirers.first?.deadline, reservedRequests.first?.deadline].compactMap { $0 }.min()
    }

    /// A fresh connection id (also for connections outside the pool, such as the listener).
    mutating func makeID() -> ConnectionID {
        defer { nextID += 1 }
        return ConnectionID(raw: nextID)
    }

    // MARK: events

    /// A statement for any connection arrived; it waits for ``dispatch(mayOpen:)``.
    mutating func enqueue(_ request: Request, deadline: ContinuousClock.Instant) {
        requests.append((request, deadline))
    }

    /// A statement for the reserved connection arrived; it waits for ``dispatch(mayOpen:)``.
    mutating func enqueueReserved(_ request: Request, deadline: ContinuousClock.Instant) {
        reservedRequests.append((request, deadline))
    }

    /// A transaction wants a connection of its own; it waits for ``dispatch(mayOpen:)``.
    mutating func enqueueAcquirer(_ acquirer: Acquirer, deadline: ContinuousClock.Instant) {
        acquirers.append((acquirer, deadline))
    }

    /// The shell sent a statement on `id` itself (a transaction's, or the session setup).
    mutating func sent(on id: ConnectionID) {
        connections[id]?.inflight += 1
    }

    /// `count` statements on `id` finished.
    mutating func finished(_ count: Int, on id: ConnectionID) {
        guard var connection = connections[id] else { return }
        connection.inflight = max(0, connection.inflight - count)
        connections[id] = connection
    }

    /// A connection attempt finished the handshake.
    mutating func connectionReady(_ id: ConnectionID) {
        connections[id]?.state = .ready
    }

    /// A connection broke or was closed; it is forgotten (its statements are the shell's to fail).
    mutating func connectionClosed(_ id: ConnectionID) {
        connections[id] = nil
    }

    /// A connection attempt failed. When no other connection is open or
    /// opening, the waiting work cannot be served: it fails with `error`. A failed reserved
    /// connection fails the reserved requests (the next one tries again).
    mutating func connectFailed(_ id: ConnectionID, error: StoreError) -> Actions {
        let wasReserved = connections[id]?.reserved ?? false
        connections[id] = nil
        var actions = Actions()
        if wasReserved {
            actions.failedRequests = reservedRequests.map(\.request)
            reservedRequests.removeAll()
            actions.failure = actions.failedRequests.isEmpty ? nil : error
            return actions
        }
        // Only a ready connection can serve what waits: other attempts still connecting go to
        // the same servers. (Counting them, attempts that overlap — each failure finding the
        // next one already opened for the waiting work — kept work waiting for its whole
        // timeout while no server accepted writes during a failover.)
        guard !connections.values.contains(where: { !$0.reserved && $0.state == .ready }) else { return actions }
        actions.failedRequests = takeAllRequests()
        actions.failedAcquirers = acquirers.map(\.acquirer)
        acquirers.removeAll()
        actions.failure = error
        return actions
    }

    /// A transaction gave its connection back; `clean` is false when it did not
    /// end cleanly, and then the connection is closed instead of reused.
    mutating func release(_ id: ConnectionID, clean: Bool) -> Actions {
        var actions = Actions()
        guard connections[id] != nil else { return actions }
        if clean {
            connections[id]?.pinned = false
        } else {
            connections[id] = nil
            actions.close.append(id)
        }
        return actions
    }

    /// Fails work that has waited past its deadline.
    mutating func expire(now: ContinuousClock.Instant, error: StoreError) -> Actions {
        var actions = Actions()
        while requestsHead < requests.count, requests[requestsHead].deadline <= now {
            actions.failedRequests.append(requests[requestsHead].request)
            requestsHead += 1
        }
        while let first = acquirers.first, first.deadline <= now {
            acquirers.removeFirst()
            actions.failedAcquirers.append(first.acquirer)
        }
        while let first = reservedRequests.first, first.deadline <= now {
            reservedRequests.removeFirst()
            actions.failedRequests.append(first.request)
        }
        if !actions.failedRequests.isEmpty || !actions.failedAcquirers.isEmpty { actions.failure = error }
        compact()
        return actions
    }

    /// Shutting down: everything still waiting fails with `error`.
    mutating func close(error: StoreError) -> Actions {
        var actions = Actions()
        actions.failedRequests = takeAllRequests() + reservedRequests.map(\.request)
        reservedRequests.removeAll()
        actions.failedAcquirers = acquirers.map(\.acquirer)
        acquirers.removeAll()
        actions.failure = error
        return actions
    }

    /// Hands waiting work to connections: transactions first (each pins the
    /// least-loaded free connection), then statements (an idle connection
    /// first, else pipelined behind others up to ``pipelineDepth``). Opens a
    /// connection, up to ``maximumConnections``, while every free one is busy
    /// and fewer are opening than work is waiting; `mayOpen` false only
    /// reports that one is needed. Reserved requests go to the reserved connection (opened
    /// when missing), pipelined up to ``pipelineDepth``.
    mutating func dispatch(mayOpen: Bool) -> Actions {
        var actions = Actions()
        if !reservedRequests.isEmpty {
            if let reserved = connections.first(where: { $0.value.reserved }) {
                let id = reserved.key
                var inflight = reserved.value.inflight
                while reserved.value.state == .ready, inflight < pipelineDepth, !reservedRequests.isEmpty {
                    inflight += 1
                    actions.send.append((reservedRequests.removeFirst().request, id))
                }
                connections[id]!.inflight = inflight
            } else if mayOpen {
                let id = makeID()
                connections[id] = Connection(state: .connecting, reserved: true)
                actions.open.append(id)
            } else {
                actions.openDeferred = true
            }
        }
        while !acquirers.isEmpty {
            guard let id = leastLoaded() else {
                open(demand: acquirers.count, mayOpen: mayOpen, into: &actions)
                break
            }
            connections[id]?.pinned = true
            actions.pin.append((acquirers.removeFirst().acquirer, id))
        }
        while requestsHead < requests.count {
            let best = leastLoaded()
            if best.map({ connections[$0]!.inflight > 0 }) ?? true {
                open(demand: waitingRequests, mayOpen: mayOpen, into: &actions)
            }
            guard let id = best, connections[id]!.inflight < pipelineDepth else { break }
            connections[id]!.inflight += 1
            actions.send.append((requests[requestsHead].request, id))
            requestsHead += 1
        }
        compact()
        return actions
    }

    // MARK: helpers

    /// The ready, unpinned connection with the fewest statements in flight (lowest id on ties).
    private func leastLoaded() -> ConnectionID? {
        var best: (id: ConnectionID, inflight: Int)?
        for (id, connection) in connections where connection.state == .ready && !connection.pinned && !connection.reserved {
            if let current = best, current.inflight < connection.inflight || (current.inflight == connection.inflight && current.id.raw < id.raw) {
                continue
            }
            best = (id, connection.inflight)
        }
        return best?.id
    }

    private mutating func open(demand: Int, mayOpen: Bool, into actions: inout Actions) {
        let pool = connections.values.filter { !$0.reserved }
        let opening = pool.filter { $0.state == .connecting }.count
        guard pool.count < maximumConnections, opening < demand else { return }
        guard mayOpen else {
            actions.openDeferred = true
            return
        }
        let id = makeID()
        connections[id] = Connection(state: .connecting)
        actions.open.append(id)
    }

    private mutating func takeAllRequests() -> [Request] {
        let taken = requests[requestsHead...].map(\.request)
        requests.removeAll(keepingCapacity: true)
        requestsHead = 0
        return taken
    }

    private mutating func compact() {
        if requestsHead == requests.count {
            requests.removeAll(keepingCapacity: true)
            requestsHead = 0
        } else if requestsHead > 1024, requestsHead * 2 > requests.count {
            requests.removeFirst(requestsHead)
            requestsHead = 0
        }
    }
}
