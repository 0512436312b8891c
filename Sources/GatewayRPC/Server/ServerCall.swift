import GatewayTransport
import GatewayChannel
import GatewayWire
import Synchronization

/// The server side of one call, usable from any thread or task.
///
/// Every method hands a request to the connection's mailbox, applied on its event
/// loop, where the ``ServerConnection`` owns the `FrameConnection`; sends are
/// ordered as they were made, even across a move of the connection to another
/// loop. After the call ended (by us, by the peer's cancel or by the
/// connection closing), sends are dropped and ``isFinished`` is true.
///
/// `@unchecked Sendable`: the `let`s are immutable, ``finished`` is atomic,
/// ``cancelHandler`` is behind its `Mutex`, and the connection's bookkeeping
/// (``requests``, ``loopServer``, ``requestsEndedHandler``, ``requestsEnded``,
/// ``started``) is read and written only on the connection's loop, by
/// ``ServerConnection``. Keeping that bookkeeping here, in the one object a call has
/// anyway, spares the connection a second per-call allocation and the copies of a
/// per-call struct in its table.
public final class ServerCall: @unchecked Sendable {
    public let streamID: UInt32
    /// The connection the call arrived on.
    public let connection: ServerConnection
    /// The call's metadata from CALL_START; with the connection's peer, identity and console
    /// session and the route's path, its ``CallContext`` (``ServerConnection/context(of:)``),
    /// made when the handler starts rather than kept for the call's life.
    let metadata: [ReaderGatewayV1.MetadataEntry]
    /// How the call is served and counted.
    let route: CallServer.Route
    private let finished = Atomic<Bool>(false)
    private let cancelHandler = Mutex<(@Sendable () -> Void)?>(nil)

    // Loop-confined (the connection's loop): the connection's bookkeeping of the call.
    /// Bidirectional calls: where arriving requests go.
    var requests: AsyncStream<[UInt8]>.Continuation?
    /// Bidirectional calls: how many messages (wake-ups included) went into ``requests``.
    var yielded = 0
    /// Bidirectional calls served on the loop: takes every arriving request, in place of the
    /// stream (see ``handOver(_:)``).
    var loopServer: (any LoopServed)?
    /// ``loopServer`` hears the end of the requests (``LoopServed/requestsEnded()``).
    var awaitsEnd = false
    /// Bidirectional calls whose handler reads no more (``holdRequests()``): the messages
    /// arriving until the hand-over, held for it instead of going into the stream.
    var held: [[UInt8]]?
    /// The peer's requests have ended: half-close, cancel, the call's end or the connection's.
    var requestsEnded = false
    /// Unary and server-streaming calls: whether the request arrived.
    var started = false

    init(streamID: UInt32, connection: ServerConnection, metadata: [ReaderGatewayV1.MetadataEntry], route: CallServer.Route) {
        self.streamID = streamID
        self.connection = connection
        self.metadata = metadata
        self.route = route
    }

    /// Whether the call has ended (no more messages reach the peer).
    public var isFinished: Bool { finished.load(ordering: .acquiring) }

    /// The connection the call arrived on.
    public var connectionID: UInt64 { connection.id }

    /// Sends one message (dropped when the call has ended).
    public func send(_ message: some ProtobufMessage) {
        guard !isFinished else { return }
        connection.submit(.message(streamID, message.serializedBytes()))
    }

    /// Wakes the handler of a bidirectional call: an empty message arrives in its
    /// request stream, in order with the peer's messages.
    public func wake() {
        guard !isFinished else { return }
        connection.submit(.wake(streamID))
    }

    /// Ends the call with `status` (OK for success). Only the first end counts.
    public func end(_ status: ReaderGatewayV1.Status = .ok) {
        guard markFinished() else { return }
        connection.submit(.end(streamID, status))
    }

    /// Sends `message` then ends the call with OK, in one hop.
    public func respond(_ bytes: [UInt8]) {
        guard markFinished() else { return }
        connection.submit(.respond(streamID, bytes))
    }

    /// Bidirectional calls: the handler reads no more from the request stream and will hand
    /// the call over (``handOver(_:)``): messages arriving from when this is applied wait on
    /// the loop for the hand-over (at most as many as the stream holds, the newest), so that
    /// the hand-over finds none in the stream.
    public func holdRequests() {
        connection.submit(.holdRequests(self))
    }

    /// Bidirectional calls: undoes ``holdRequests()`` (the handler reads the stream again):
    /// the held messages go into the stream, in order, and so do later ones.
    public func releaseHeldRequests() {
        connection.submit(.releaseHeldRequests(self))
    }

    /// Bidirectional calls: hands the call's requests to the connection's loop (see
    /// ``LoopHandOver``). The handler must have stopped reading the request stream.
    public func handOver(_ handOver: LoopHandOver) {
        connection.submit(.handOver(self, handOver))
    }

    /// Bidirectional calls: `server` hears once, on the connection's loop, that the peer's
    /// requests have ended (half-close, cancel, the call's end, the connection lost), or as
    /// soon as this is applied if they already have.
    public func awaitEnd(of server: any LoopServed) {
        connection.submit(.awaitEnd(self, server))
    }

    /// On the loop: the peer's requests ended. The stream finishes, the handler runs (once).
    func endRequests() {
        requests?.finish()
        requestsEnded = true
        if awaitsEnd, let server = loopServer {
            awaitsEnd = false
            server.requestsEnded()
        }
    }

    /// Runs `handler` once when the call ends without our END_OF_CALL (peer
    /// cancel, deadline, connection lost); at once if that already happened.
    public func onCancel(_ handler: @escaping @Sendable () -> Void) {
        let runNow = cancelHandler.withLock { slot -> Bool in
            if isFinished { return true }
            slot = handler
            return false
        }
        if runNow { handler() }
    }

    /// Called on the loop when the call ended from the peer's side or the connection's.
    func cancelledByPeer() {
        guard markFinished() else { return }
        let handler = cancelHandler.withLock { slot in
            let taken = slot
            slot = nil
            return taken
        }
        handler?()
    }

    private func markFinished() -> Bool {
        !finished.exchange(true, ordering: .acquiringAndReleasing)
    }
}

/// Serves a bidirectional call's requests on the connection's loop once its handler handed
/// them over (``LoopHandOver``): one object per call, kept by the call.
public protocol LoopServed: AnyObject, Sendable {
    /// One request message (false: the call is ending, read no more from the stream).
    func serve(_ bytes: [UInt8], call: ServerCall) -> Bool
    /// The requests ended, after every one was served (once).
    func requestsEnded()
}

/// What a bidirectional call's handler gives the connection's loop when the loop is to serve
/// the rest of the call without a task (``ServerCall/handOver(_:)``): every later request goes
/// to ``server`` on the loop, which hears the end of the requests after all of them.
///
/// The hand-over is applied on the loop, where the requests arrive, in order: first what
/// waits in the request stream, then what was held on the loop since the handler stopped
/// reading (``ServerCall/holdRequests()``), then what arrives. When the handler had read every
/// message that went into the stream (``consumed`` equals the call's count: the common case),
/// the held ones are served at once and nothing is left to do. Otherwise (a message arrived
/// between the handler's last read and the hold, or the call is already gone) the stream is
/// finished and a task reads it to its end through ``server``, then serves the held ones and
/// asks for the end: the stream's finish is the only mark, so a stale empty wake-up cannot be
/// taken for the hand-over.
public final class LoopHandOver: Sendable {
    public let requests: AsyncStream<[UInt8]>
    /// How many messages the handler read from ``requests``.
    public let consumed: Int
    public let server: any LoopServed

    public init(requests: AsyncStream<[UInt8]>, consumed: Int, server: any LoopServed) {
        self.requests = requests
        self.consumed = consumed
        self.server = server
    }

    /// Reads what waited in the finished stream, then serves `held`, then asks for the end
    /// (a task of its own).
    func drain(_ call: ServerCall, then held: [[UInt8]]) {
        Task {
            var open = true
            for await bytes in requests {
                open = server.serve(bytes, call: call)
                if !open { break }
            }
            if open { serveHeld(held, call: call) }
            call.awaitEnd(of: server)
        }
    }

    /// Serves `held` through ``server`` in order, stopping at the first message after which
    /// the call is ending (``LoopServed/serve(_:call:)`` answered false).
    func serveHeld(_ held: [[UInt8]], call: ServerCall) {
        for bytes in held {
            if !server.serve(bytes, call: call) { return }
        }
    }
}
