import GatewayClient
import GatewayTransport
import GatewayWire
import Synchronization

/// One TLS connection speaking the protocol from its frames, with no recovery of its own:
/// a client-role ``FrameConnection`` over ``TLSClient``, calls started and answered as
/// PROTOCOL.md describes, nothing retried, nothing resumed, nothing reconnected. When the
/// connection ends, every call on it ends with `UNAVAILABLE` / `CONNECTION_LOST` and the
/// connection stays dead; what to do next is the caller's business.
///
/// Every frame that ends a call or carries a message counts one **arrival**, in the order
/// the bytes came off the socket, so a caller can tell which of two answers — an event on
/// `SubscribeEvents`, a refusal on another call — reached it first.
///
/// ## Threads
/// `@unchecked Sendable`: the properties under "loop-confined" are read and written only on
/// ``loop``'s thread (transport callbacks run there, the public methods hop there with
/// `loop.execute`); ``inbox`` and ``connectWaiter`` are `Mutex`es read from any thread.
final class WireConnection: ConnectionHandler, @unchecked Sendable {
    /// How a call ended: its response message (unary), its status, and the arrival of the
    /// frame that ended it.
    struct Answer: Sendable {
        var message: [UInt8]?
        var status: ReaderGatewayV1.Status
        var arrival: UInt64

        var isOK: Bool { status.code == .ok }
        var reason: ReaderGatewayV1.ErrorReason { status.reason }
        /// `CODE/REASON: message`, as the client library prints errors.
        var text: String { RPCError(status: status).description }
    }

    /// A message of a streaming call, with its arrival.
    struct Arrived: Sendable {
        var arrival: UInt64
        var bytes: [UInt8]
    }

    /// What the streaming call delivered and has not been taken yet.
    private struct Inbox: Sendable {
        var messages: [Arrived] = []
        /// Set when the streaming call ended (with its status) or the connection did.
        var ended: ReaderGatewayV1.Status?
        /// The arrival of that end.
        var endedArrival: UInt64?
    }

    let loop: EventLoop

    // MARK: loop-confined
    private var connection: TLSConnection?
    private var frames: FrameConnection
    private var unary: [UInt32: (continuation: CheckedContinuation<Answer, Never>, message: [UInt8]?)] = [:]
    private var streamID: UInt32?
    private var arrivals: UInt64 = 0
    private var timer: ScheduledTask?
    private var armedDeadline: WireTime?
    private var closing = false
    private var finished = false

    // MARK: any thread
    private let inbox = Mutex(Inbox())
    private let connectWaiter = Mutex<CheckedContinuation<Void, any Error>?>(nil)

    private init(loop: EventLoop) {
        self.loop = loop
        frames = FrameConnection(
            configuration: ConnectionConfiguration(
                role: .client, localSettings: ConnectionSettings(),
                keepalive: .init(interval: .seconds(5), timeout: .seconds(5))
            ),
            now: WireTime.now
        )
    }

    /// Connects to `127.0.0.1:port` and completes the TLS handshake (ALPN `reader-gateway/1`),
    /// trusting `caPath`.
    ///
    /// - Throws: ``RPCError`` `UNAVAILABLE` / `CONNECTION_LOST` when the connection or the
    ///   handshake fails.
    static func connect(port: Int, caPath: String, group: EventLoopGroup, timeout: Duration = .seconds(2)) async throws -> WireConnection {
        var limits = ConnectionLimits()
        limits.handshakeTimeout = timeout
        limits.idleTimeout = nil
        let context = try TLSContext(client: TLSClientConfiguration(
            trustedCAPath: caPath, alpnProtocols: [ClientChannelConfiguration.alpnProtocol], limits: limits
        ))
        let wire = WireConnection(loop: group.next())
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            wire.connectWaiter.withLock { $0 = continuation }
            TLSClient.connect(host: "127.0.0.1", port: port, context: context, limits: limits, on: wire.loop) { _ in wire }
        }
        return wire
    }

    /// Calls a unary method and waits for its end (never throws: a failure is a status).
    func call<Request, Response>(_ method: ProtobufMethod<Request, Response>, _ request: Request, timeout: Duration) async -> Answer {
        let bytes = request.serializedBytes()
        return await withCheckedContinuation { (continuation: CheckedContinuation<Answer, Never>) in
            loop.execute { [self] in start(method.path, bytes, timeout: timeout, unary: continuation) }
        }
    }

    /// Starts the connection's one streaming call (`SubscribeEvents`); its messages go to
    /// the inbox (``take()``).
    func subscribe<Request, Response>(_ method: ProtobufMethod<Request, Response>, _ request: Request) {
        let bytes = request.serializedBytes()
        loop.execute { [self] in start(method.path, bytes, timeout: nil, unary: nil) }
    }

    /// Takes the streaming call's messages that arrived so far, and its end if it ended.
    func take() -> (messages: [Arrived], ended: ReaderGatewayV1.Status?) {
        inbox.withLock { inbox in
            defer { inbox.messages = [] }
            return (inbox.messages, inbox.ended)
        }
    }

    /// The streaming call's end and its arrival, if it ended.
    var streamEnd: (status: ReaderGatewayV1.Status, arrival: UInt64)? {
        inbox.withLock { inbox in inbox.ended.map { ($0, inbox.endedArrival ?? 0) } }
    }

    /// Cuts the connection at once, without a GOAWAY or close_notify (a lane losing its network).
    func cut() {
        loop.execute { [self] in connection?.close(graceful: false) }
    }

    // MARK: transport callbacks (loop thread)

    func connectionActive(_ connection: TLSConnection, info: ConnectionInfo) {
        self.connection = connection
        afterOperation()
        connectWaiter.withLock { waiter in
            defer { waiter = nil }
            return waiter
        }?.resume()
    }

    func bytesReceived(_ bytes: UnsafeRawBufferPointer, on connection: TLSConnection) {
        process(frames.receive(bytes, now: WireTime.now))
        afterOperation()
    }

    func connectionClosed(_ reason: CloseReason, on connection: TLSConnection) {
        finished = true
        self.connection = nil
        timer?.cancel()
        timer = nil
        let status = ReaderGatewayV1.Status(.connectionLost, "the connection ended: \(reason)")
        process(frames.connectionLost(reason: status.message))
        endEverything(status)
        connectWaiter.withLock { waiter in
            defer { waiter = nil }
            return waiter
        }?.resume(throwing: RPCError(status: status))
    }

    // MARK: loop thread

    private func start(_ path: String, _ request: [UInt8], timeout: Duration?, unary continuation: CheckedContinuation<Answer, Never>?) {
        guard connection != nil, !finished, !closing else {
            let status = ReaderGatewayV1.Status(.connectionLost, "the connection is closed")
            if let continuation {
                continuation.resume(returning: Answer(status: status, arrival: arrivals))
            } else {
                let arrival = arrivals
                inbox.withLock { if $0.ended == nil { $0.ended = status; $0.endedArrival = arrival } }
            }
            return
        }
        var started: UInt32?
        do {
            let id = try frames.startCall(method: path, timeout: timeout, now: WireTime.now)
            started = id
            if let continuation { unary[id] = (continuation, nil) } else { streamID = id }
            _ = try frames.send(serialized: request, on: id)
            try frames.halfClose(id)
        } catch {
            // The connection cannot take the call (GOAWAY received, out of stream ids): the
            // caller needs a new one, as after a lost connection.
            let status = ReaderGatewayV1.Status(.connectionLost, "could not start \(path) on this connection: \(error)")
            if let id = started {
                unary[id] = nil
                process(frames.cancel(id, status: status))
            }
            if let continuation {
                continuation.resume(returning: Answer(status: status, arrival: arrivals))
            } else {
                let arrival = arrivals
                inbox.withLock { $0.ended = status; $0.endedArrival = arrival }
            }
        }
        afterOperation()
    }

    private func process(_ events: [ConnectionEvent]) {
        for event in events {
            switch event {
            case .message(let id, let bytes):
                arrivals += 1
                frames.messageConsumed(id, byteCount: bytes.count)
                if unary[id] != nil {
                    unary[id]?.message = bytes
                } else if id == streamID {
                    let arrival = arrivals
                    inbox.withLock { $0.messages.append(Arrived(arrival: arrival, bytes: bytes)) }
                }
            case .callEnded(let id, let end):
                arrivals += 1
                if let entry = unary.removeValue(forKey: id) {
                    entry.continuation.resume(returning: Answer(message: entry.message, status: end.effectiveStatus, arrival: arrivals))
                } else if id == streamID {
                    streamID = nil
                    let arrival = arrivals
                    inbox.withLock { $0.ended = end.effectiveStatus; $0.endedArrival = arrival }
                }
            case .closed:
                closing = true
            case .writable, .pingAcknowledged, .goAwayReceived, .callStarted, .halfClosed, .callCancelled:
                break
            }
        }
    }

    private func endEverything(_ status: ReaderGatewayV1.Status) {
        let waiting = unary
        unary = [:]
        arrivals += 1
        for (_, entry) in waiting { entry.continuation.resume(returning: Answer(status: status, arrival: arrivals)) }
        streamID = nil
        let arrival = arrivals
        inbox.withLock { if $0.ended == nil { $0.ended = status; $0.endedArrival = arrival } }
    }

    private func afterOperation() {
        guard let connection else { return }
        if frames.hasOutbound { _ = connection.write(frames.takeOutbound()) }
        if closing {
            timer?.cancel()
            timer = nil
            connection.close(graceful: true)
            return
        }
        let next = frames.nextTimerDeadline
        guard next != armedDeadline else { return }
        timer?.cancel()
        timer = nil
        armedDeadline = next
        guard let next else { return }
        let now = WireTime.now
        let delay: Duration = next > now ? .nanoseconds(Int64(next.nanoseconds - now.nanoseconds)) : .zero
        timer = loop.schedule(after: delay) { [self] in
            timer = nil
            armedDeadline = nil
            guard !finished else { return }
            process(frames.tick(now: WireTime.now))
            afterOperation()
        }
    }
}
