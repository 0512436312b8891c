import GatewayCore
import GatewayTransport
import GatewayWebSocket
import GatewayChannel
import GatewayWire
import Synchronization

/// One connection of a ``CallServer``: a server-role `FrameConnection` driven by its
/// transport (TLS, or an in-memory pipe), with calls routed by method path.
///
/// `@unchecked Sendable`: every stored `var` is read and written only on
/// ``loop``'s thread (transport callbacks arrive there, and ``ServerCall``'s
/// requests are applied there from the ``mailbox``), except the mailbox, which is
/// behind its `Mutex`. Method handlers run in tasks and never touch this object's
/// state directly. The connection may move to another loop (see
/// `ServerConnection+Mailbox.swift`); ``loop`` is then the new one.
public final class ServerConnection: ConnectionHandler, TransportHandler, @unchecked Sendable {
    /// Identifies the connection in this process (``CallContext/connectionID``).
    public let id: UInt64
    /// The loop the connection lives on (loop-confined; changes when it moves).
    var loop: EventLoop
    let server: CallServer
    /// Requests from other threads, applied on ``loop`` in order.
    let mailbox: Mutex<ConnectionMailbox>
    /// The mailbox's previous batch, kept for its capacity (loop-confined).
    var spareBatch: [ConnectionRequest] = []
    var frames: FrameConnection
    var transport: (any ConnectionTransport)?
    /// The peer's address and verified client identity, for the calls' contexts (the rest of
    /// the transport's ``ConnectionInfo`` is not kept: this object lives as long as a reader's link).
    private(set) var peer = ""
    private var verifiedClientIdentity: String?
    /// What carries the frames, decided by the first bytes (see `ServerConnection+WebSocket.swift`).
    var carrier: FrameCarrier
    /// The reason of the frame connection's `.closed` event (the GOAWAY it sent, if any).
    var closedReason: ReaderGatewayV1.ErrorReason?
    /// The server asked this connection to shut down (WebSocket close code 1001 after it).
    var shuttingDown = false
    /// The WebSocket upgrade's or closing handshake's time limit, while one runs (loop-confined).
    var webSocketTimer: ScheduledTask?
    /// The session token of the accepted WebSocket upgrade's cookie (it authorises console
    /// calls; ``PlainHTTPResponder/sessionToken(in:)``); nil on raw connections and without it.
    var consoleSessionToken: String?
    /// The browser's `User-Agent` of a console upgrade (``CallContext/consoleUserAgent``).
    var consoleUserAgent: String?
    /// Open calls by stream id; each ``ServerCall`` carries its own loop-confined bookkeeping.
    private var calls = CallTable()
    var timer: ScheduledTask?
    var timerDeadline: WireTime?
    var closed = false
    /// Holds the bytes of a write while the transport takes them (see ``flush()``).
    var writeBuffer: [UInt8] = []

    init(id: UInt64, loop: EventLoop, server: CallServer) {
        self.id = id
        self.loop = loop
        self.mailbox = Mutex(ConnectionMailbox(loop: loop))
        self.server = server
        self.frames = FrameConnection(shared: server.sharedConnectionConfiguration, now: WireTime.now)
        self.carrier = server.webSocket == nil ? .raw : .undecided([])
    }

    // MARK: TLS callbacks (forwarded to the transport's)

    public func connectionActive(_ connection: TLSConnection, info: ConnectionInfo) {
        transportActive(connection, peer: info.peer, verifiedClientIdentity: info.verifiedClientIdentity, info: info)
    }

    public func bytesReceived(_ bytes: UnsafeRawBufferPointer, on connection: TLSConnection) {
        transportReceived(bytes)
    }

    public func shutdownRequested(on connection: TLSConnection) {
        shutdownRequested()
    }

    public func connectionClosed(_ reason: CloseReason, on connection: TLSConnection) {
        transportClosed(reason, peer: connection.peer)
    }

    /// The link went quiet and the transport released its TLS buffers: the buffers kept
    /// between messages go too (the frame connection's, the write buffer, the mailbox's spare
    /// batch, a WebSocket's read and flush buffers); the next message takes them again.
    public func buffersReleased(on connection: TLSConnection) {
        frames.releaseIdleStorage()
        if writeBuffer.isEmpty { writeBuffer = [] }
        spareBatch = []
        if case .webSocket(let box) = carrier, !box.receiving {
            box.inbound = []
            box.outbound = []
        }
    }

    // MARK: transport callbacks

    func transportActive(_ transport: any ConnectionTransport, peer: String, verifiedClientIdentity: String?, info: ConnectionInfo?) {
        self.transport = transport
        self.peer = peer
        self.verifiedClientIdentity = verifiedClientIdentity
        flush()
    }

    func transportReceived(_ bytes: UnsafeRawBufferPointer) {
        switch carrier {
        case .raw:
            receiveFrames(bytes)
        case .undecided(let pending):
            decideCarrier(pending + bytes)
        case .webSocket:
            webSocketReceived(bytes)
        case .http:
            httpReceived(Array(bytes))
        }
    }

    /// Raw protocol bytes (the preface, then frames) for the frame connection; then the
    /// output, unless the caller flushes once after several (the WebSocket carrier, whose
    /// one read holds a message per frame).
    func receiveFrames(_ bytes: UnsafeRawBufferPointer, flushing: Bool = true) {
        // The loop's event buffer is reused from read to read and shared by its connections
        // (taken out while in use, so a nested use cannot see it half-processed).
        let loop = self.loop
        var events = server.eventBuffers.take(on: loop)
        frames.receive(bytes, now: WireTime.now, into: &events)
        handle(events)
        server.eventBuffers.put(&events, on: loop)
        if flushing { flush() }
    }

    /// The server is shutting down: GOAWAY, the calls in flight finish, then the connection closes.
    func shutdownRequested() {
        shuttingDown = true
        handle(frames.initiateGracefulShutdown())
        flush()
    }

    func transportClosed(_ reason: CloseReason, peer: String) {
        handle(frames.connectionLost(reason: "\(reason)"))
        closed = true
        timer?.cancel()
        timer = nil
        cancelWebSocketTimer()
        let carriedCalls = transport != nil
        transport = nil
        // A connection that never finished its handshake carried no call and no session: the
        // server is not told (a flood closes thousands of them a second), and it is logged
        // at debug level only, with why it ended (timed out, evicted, refused by TLS).
        if carriedCalls {
            server.connectionClosed(self)
        } else if server.logger.isEnabled(.debug) {
            server.logger.debug("connection closed in its handshake", ["connection": id, "peer": peer, "reason": "\(reason)"])
        }
    }

    // MARK: events

    private func handle(_ events: [ConnectionEvent]) {
        for event in events {
            switch event {
            case .callStarted(let streamID, let start, _):
                callStarted(streamID, start)
            case .message(let streamID, let bytes):
                frames.messageConsumed(streamID, byteCount: bytes.count)
                messageReceived(bytes, on: streamID)
            case .halfClosed(let streamID):
                guard let call = calls[streamID] else { break }
                call.endRequests()
                if !call.started, call.requests == nil {
                    // A unary or server-streaming call closed without its request.
                    endCall(streamID, status: ReaderGatewayV1.Status(.invalidRequest, "the call half-closed before sending its request message"))
                }
            case .callCancelled(let streamID, _):
                if let call = calls.removeValue(forKey: streamID) {
                    call.endRequests()
                    call.cancelledByPeer()
                    server.callEnded(call.route, status: .cancelled)
                }
            case .closed(let status):
                closedReason = status.reason
                // Not closed here: the frames queued with this event (the GOAWAY of a
                // connection error, a drained connection's last END_OF_CALL) are not
                // written yet. ``flush()`` writes them, then closes (close_notify after them).
                break
            case .callEnded, .writable, .pingAcknowledged, .goAwayReceived:
                break
            }
        }
    }

    private func callStarted(_ streamID: UInt32, _ start: ReaderGatewayV1.CallStart) {
        guard let route = server.route(for: start.method) else {
            _ = try? frames.endCall(streamID, status: ReaderGatewayV1.Status(.methodNotFound, "no method \(start.method) on this server; check the method path against the .proto files"))
            server.unroutedCallEnded(status: .unimplemented)
            return
        }
        if server.logger.isEnabled(.trace) { server.logger.trace("call started", ["connection": id, "stream": streamID, "method": start.method]) }
        let call = ServerCall(streamID: streamID, connection: self, metadata: start.metadata, route: route)
        if case .bidirectional(let body) = route.handler {
            let context = context(of: call)
            let (requests, continuation) = AsyncStream<[UInt8]>.makeStream(bufferingPolicy: .bufferingNewest(Self.requestBufferLimit))
            call.requests = continuation
            call.started = true
            Task { await body(requests, call, context) }
        }
        calls[streamID] = call
    }

    /// What the handler of `call` knows about it (on the loop: the connection's peer, identity
    /// and console session are set before any call starts and do not change).
    func context(of call: ServerCall) -> CallContext {
        CallContext(
            method: call.route.path, metadata: call.metadata, connectionID: id,
            peer: peer, verifiedClientIdentity: verifiedClientIdentity,
            consoleSessionToken: consoleSessionToken, consoleUserAgent: consoleUserAgent
        )
    }

    private func messageReceived(_ bytes: [UInt8], on streamID: UInt32) {
        guard let call = calls[streamID] else { return }
        if let server = call.loopServer {
            _ = server.serve(bytes, call: call)
            return
        }
        if call.held != nil {
            // Bounded as the stream is: the newest are kept.
            if call.held!.count >= ServerConnection.requestBufferLimit { call.held!.removeFirst() }
            call.held!.append(bytes)
            return
        }
        if let requests = call.requests {
            call.yielded += 1
            requests.yield(bytes)
            return
        }
        guard !call.started else {
            endCall(streamID, status: ReaderGatewayV1.Status(.invalidRequest, "this method takes one request message; a second one arrived"))
            return
        }
        call.started = true
        let context = context(of: call)
        switch call.route.handler {
        case .unary(let body):
            Task {
                do throws(RPCError) {
                    let response = try await body(bytes, context)
                    call.respond(response)
                } catch {
                    call.end(error.status)
                }
            }
        case .serverStreaming(let body):
            Task { await body(bytes, call, context) }
        case .immediate(let body):
            body(bytes, call, context)
        case .bidirectional:
            break
        }
    }

    // MARK: output (on the loop, from ServerCall through the mailbox)

    /// Yields an empty message into a bidirectional call's request stream: the
    /// handler's own wake-up (it then looks at what changed, see ``ServerCall/wake()``).
    func wake(_ streamID: UInt32) {
        guard let call = calls[streamID], let requests = call.requests else { return }
        call.yielded += 1
        requests.yield([])
    }

    func sendMessage(_ bytes: [UInt8], on streamID: UInt32) {
        guard !closed, calls[streamID] != nil else { return }
        do {
            try frames.send(serialized: bytes, on: streamID)
        } catch let error as WireError where error.code == .queueFull {
            // The peer does not read this call's messages: its bounded buffer is full. Only this
            // call ends, at once: a CANCEL (an END_OF_CALL would wait behind the full queue).
            abandonCall(streamID, status: ReaderGatewayV1.Status(
                .consumerTooSlow, "the peer did not read this call's messages and the gateway's buffer for it is full (\(error.message)); read faster, then call again"
            ))
        } catch {
            endCall(streamID, status: ReaderGatewayV1.Status(.messageTooLarge, "the gateway could not queue a message for this call: \(error)"))
        }
        flush()
    }

    /// Sends the response then ends the call with OK, written in one flush.
    func respond(_ bytes: [UInt8], on streamID: UInt32) {
        guard !closed, calls[streamID] != nil else { return }
        do {
            try frames.send(serialized: bytes, on: streamID)
        } catch {
            endCall(streamID, status: ReaderGatewayV1.Status(.messageTooLarge, "the gateway could not queue a message for this call: \(error)"))
            return
        }
        endCall(streamID, status: .ok)
    }

    /// The most request messages of a bidirectional call waiting for its handler.
    static let requestBufferLimit = 256

    /// See ``ServerCall/holdRequests()``.
    func hold(_ call: ServerCall) {
        guard calls[call.streamID] === call, call.loopServer == nil, call.held == nil else { return }
        call.held = []
    }

    /// See ``ServerCall/releaseHeldRequests()``: the held messages go into the stream, in
    /// order (nothing went into it while they were held), and so do later ones.
    func releaseHeld(_ call: ServerCall) {
        guard let held = call.held else { return }
        call.held = nil
        guard let requests = call.requests else { return }
        for bytes in held {
            call.yielded += 1
            requests.yield(bytes)
        }
    }

    /// See ``ServerCall/handOver(_:)`` and ``LoopHandOver``.
    func apply(_ handOver: LoopHandOver, to call: ServerCall) {
        let held = call.held ?? []
        call.held = nil
        guard calls[call.streamID] === call else {
            // Gone: its requests ended and its stream is finished; what waits in it is read.
            handOver.drain(call, then: held)
            return
        }
        call.loopServer = handOver.server
        call.requests?.finish()
        call.requests = nil
        guard call.yielded == handOver.consumed else {
            handOver.drain(call, then: held)
            return
        }
        handOver.serveHeld(held, call: call)
        if call.requestsEnded {
            handOver.server.requestsEnded()
        } else {
            call.awaitsEnd = true
        }
    }

    /// See ``ServerCall/awaitEnd(of:)``: `server` hears now if the requests ended (the call
    /// is gone, or half-closed), else when they do.
    func awaitEnd(of server: any LoopServed, on call: ServerCall) {
        guard calls[call.streamID] === call, !call.requestsEnded else {
            server.requestsEnded()
            return
        }
        call.loopServer = server
        call.awaitsEnd = true
    }

    /// Ends a call without waiting for its queued messages: CANCEL with `status`, the queue dropped.
    func abandonCall(_ streamID: UInt32, status: ReaderGatewayV1.Status) {
        guard !closed, let call = calls.removeValue(forKey: streamID) else { return }
        call.endRequests()
        call.cancelledByPeer()
        server.logger.info("call abandoned", ["connection": id, "stream": streamID, "method": call.route.path, "reason": status.reason])
        handle(frames.cancel(streamID, status: status))
        server.callEnded(call.route, status: status.code)
        flush()
    }

    func endCall(_ streamID: UInt32, status: ReaderGatewayV1.Status) {
        guard !closed, let call = calls.removeValue(forKey: streamID) else { return }
        call.endRequests()
        call.cancelledByPeer()
        if server.logger.isEnabled(.trace) { server.logger.trace("call ended", ["connection": id, "stream": streamID, "method": call.route.path, "reason": status.reason]) }
        handle((try? frames.endCall(streamID, status: status)) ?? [])
        server.callEnded(call.route, status: status.code)
        flush()
    }

    /// Writes what the frame connection queued, then closes the transport if the frame
    /// connection finished (so a GOAWAY or a last END_OF_CALL leaves before close_notify),
    /// else re-arms its timer.
    func flush() {
        guard let transport, !closed else { return }
        switch carrier {
        case .raw: break
        case .undecided:
            // Nothing is written before the client's first bytes say how; a connection that
            // ends first (a shutdown) just closes.
            if frames.state == .closed { transport.close(graceful: true) }
            return
        case .webSocket:
            flushWebSocket()
            return
        case .http:
            return
        }
        if frames.hasOutbound {
            frames.takeOutbound(into: &writeBuffer)
            _ = transport.write(writeBuffer)
            // The storage goes back to the frame connection, which decides what is kept
            // between writes (one buffer, at most 64 KiB).
            frames.returnOutboundStorage(&writeBuffer)
        }
        if frames.state == .closed {
            transport.close(graceful: true)
            return
        }
        armTimer()
    }

    func armTimer() {
        guard let deadline = frames.currentTimerDeadline() else { return }
        if let current = timerDeadline, current <= deadline, timer != nil { return }
        timer?.cancel()
        timerDeadline = deadline
        let delay = deadline.since(WireTime.now)
        timer = loop.schedule(after: delay) { [self] in
            timer = nil
            timerDeadline = nil
            guard !closed else { return }
            handle(frames.tick(now: WireTime.now))
            flush()
        }
    }
}

