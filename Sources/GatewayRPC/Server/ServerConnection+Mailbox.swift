import CGatewayLinux
import GatewayTransport
import GatewayChannel
import GatewayWire
import Synchronization

/// What other threads and tasks ask of a connection (through ``ServerCall``), applied on
/// the connection's loop in the order asked.
enum ConnectionRequest: Sendable {
    case message(UInt32, [UInt8])
    case respond(UInt32, [UInt8])
    /// Indirect: the status is far larger than the other requests, and a connection's mailbox
    /// keeps its queue's storage (sized by its largest request) for its life.
    indirect case end(UInt32, ReaderGatewayV1.Status)
    case wake(UInt32)
    case holdRequests(ServerCall)
    case releaseHeldRequests(ServerCall)
    case handOver(ServerCall, LoopHandOver)
    case awaitEnd(ServerCall, any LoopServed)
    /// Move the connection to this loop (see ``ServerConnection/follow(_:)``).
    case move(EventLoop)
}

/// The requests waiting for a connection's loop, and which loop that is.
struct ConnectionMailbox {
    var loop: EventLoop
    var requests: [ConnectionRequest] = []
    /// A drain is queued on ``loop``, or the connection is on its way there (its arrival drains).
    var drainPending = false
    /// When the connection last moved (monotonic nanoseconds; 0: never).
    var movedAt: UInt64 = 0
}

/// ## The mailbox: one queue per connection, so a move keeps the order
/// Every request for the connection goes through one FIFO under one lock, drained by a
/// task on the connection's current loop. A connection can move to another loop
/// (``follow(_:)``); a drain still queued on the old loop then finds the mailbox pointing
/// elsewhere and leaves it, and the arrival on the new loop drains what waited, in order.
/// Hopping with `loop.execute` per request instead would let a request queued on the old
/// loop run after a later one queued on the new loop.
extension ServerConnection {
    /// The shortest time between two moves of one connection: a connection whose peers
    /// sit on two loops and take turns does not bounce between them on every message.
    static let minimumMoveInterval: UInt64 = 1_000_000_000

    /// Queues `request` for the connection's loop. Callable from any thread.
    func submit(_ request: ConnectionRequest) {
        let target = mailbox.withLock { box -> EventLoop? in
            box.requests.append(request)
            guard !box.drainPending else { return nil }
            box.drainPending = true
            return box.loop
        }
        if let target { target.execute { [self] in drain(on: target) } }
    }

    /// Brings this connection to the loop of `other`, if it lives elsewhere and has not
    /// just moved: its traffic then meets `other`'s without a hop between threads. Called
    /// on `other`'s loop (it reads `other.loop`).
    public func follow(_ other: ServerConnection) {
        let target = other.loop
        let now = rg_monotonic_nanoseconds()
        let request = mailbox.withLock { box -> Bool in
            guard box.loop !== target, box.movedAt == 0 || now &- box.movedAt >= Self.minimumMoveInterval else { return false }
            box.movedAt = now
            return true
        }
        if request { submit(.move(target)) }
    }

    /// Applies what waited in the mailbox (a task on `current`, the loop it was queued on).
    private func drain(on current: EventLoop) {
        var batch = spareBatch
        spareBatch = []
        let stale = mailbox.withLock { box -> Bool in
            // Moved after this drain was queued: the arrival drains on the new loop.
            guard box.loop === current else { return true }
            box.drainPending = false
            swap(&box.requests, &batch)
            return false
        }
        if stale { return }
        // After a move the connection belongs to the new loop's thread: hands off.
        guard !apply(batch) else { return }
        batch.removeAll(keepingCapacity: true)
        spareBatch = batch
    }

    /// Applies `batch` in order. A move hands the rest of the batch back to the mailbox,
    /// ahead of anything newer, for the arrival on the new loop, and returns true: from then
    /// on the caller must not touch the connection's state.
    private func apply(_ batch: [ConnectionRequest]) -> Bool {
        for (index, request) in batch.enumerated() {
            switch request {
            case .message(let id, let bytes): sendMessage(bytes, on: id)
            case .respond(let id, let bytes): respond(bytes, on: id)
            case .end(let id, let status): endCall(id, status: status)
            case .wake(let id): wake(id)
            case .holdRequests(let call): hold(call)
            case .releaseHeldRequests(let call): releaseHeld(call)
            case .handOver(let call, let handOver): apply(handOver, to: call)
            case .awaitEnd(let call, let server): awaitEnd(of: server, on: call)
            case .move(let target):
                if move(to: target, carrying: batch[(index + 1)...]) { return true }
            }
        }
        return false
    }

    /// Moves the connection (frames, calls, timer and socket) to `target`, with `rest` (the
    /// requests after the move in the batch being applied) first in the mailbox. On the
    /// current loop, from a drain (never inside the transport's callbacks for this
    /// connection). False: nothing changed (closed, not movable, already there), and the
    /// caller applies `rest` itself.
    private func move(to target: EventLoop, carrying rest: ArraySlice<ConnectionRequest>) -> Bool {
        // Not while a WebSocket upgrade or close runs: its timer belongs to this loop.
        guard !closed, webSocketTimer == nil, let transport, transport.isMovable, target !== loop else { return false }
        let origin = loop
        timer?.cancel()
        timer = nil
        timerDeadline = nil
        // From here until the arrival nothing runs this connection's code: the transport
        // leaves the old loop's epoll set, and requests wait in the mailbox.
        mailbox.withLock {
            $0.requests.insert(contentsOf: rest, at: 0)
            $0.loop = target
            $0.drainPending = true
        }
        loop = target
        if transport.move(to: target, then: { [self] in arrived() }) {
            server.metrics.connectionMoved()
            return true
        }
        // Not moved after all (the connection closed while flushing): stay, and drain here.
        loop = origin
        let queued = mailbox.withLock { box -> Bool in
            box.loop = origin
            box.drainPending = !box.requests.isEmpty
            return box.drainPending
        }
        if queued { origin.execute { [self] in drain(on: origin) } }
        return true
    }

    /// The new loop's side of a move: what waited is applied, the timer re-armed.
    private func arrived() {
        var batch: [ConnectionRequest] = []
        mailbox.withLock { box in
            box.drainPending = false
            swap(&box.requests, &batch)
        }
        if apply(batch) { return }
        armTimer()
    }
}
