/// Everything between a TLS connection on the gateway's port and the protocol's
/// `FrameConnection`, for one browser connection: the upgrade, then WebSocket messages
/// that each carry one protocol frame. Pure: bytes in, ``Action``s out.
///
/// The connection handler (phase B wiring) does this:
///
/// ```swift
/// var session = WebSocketServerSession(handshake: handshakeConfiguration, connection: .init(maxMessageSize: maxFrameSize + 10))
/// // readable bytes from TLS:
/// for action in session.receive(bytes) { perform(action) }
/// // bytes the FrameConnection wrote (connection.takeOutbound()):
/// for action in session.sendProtocolBytes(outbound) { perform(action) }
///
/// func perform(_ action: WebSocketServerSession.Action) {
///     switch action {
///     case .write(let bytes): tls.write(bytes)
///     case .upgraded: frames = FrameConnection(...); frames.receive(FrameHeader.clientPreface)   // no preface on WebSocket
///     case .protocolFrame(let frame): handle(frames.receive(frame, now: now()))
///     case .closeTransport: tls.close()            // after the writes before it
///     case .rejected, .peerClosed: log
///     }
/// }
/// ```
///
/// When the `FrameConnection` ends the connection (its `.closed` event, after a GOAWAY),
/// call ``close(_:reason:)`` with ``WebSocketBinding/closeCode(afterGoAwayReason:shuttingDown:)``,
/// and ``closeTimedOut()`` if the peer does not answer within a second or two.
public struct WebSocketServerSession: Sendable {
    /// What the shell does, in order.
    public enum Action: Sendable, Hashable {
        /// Bytes for the transport: the 101 or the refusal, pongs, binary messages, close frames.
        case write([UInt8])
        /// The upgrade succeeded: start the protocol's server `FrameConnection` and feed it the
        /// preface (the subprotocol stands for it on WebSocket).
        case upgraded(WebSocketUpgrade)
        /// The upgrade was refused (its response is the `.write` before this action).
        case rejected(WebSocketHandshakeRejection)
        /// A plain GET under the configured prefix (the browser library's files): write its
        /// response (``WebSocketHandshake/plainResponse(status:contentType:body:)``), then
        /// close the transport.
        case plainGet(path: String)
        /// One protocol frame (header and payload) for the `FrameConnection`.
        case protocolFrame([UInt8])
        /// The peer closed the WebSocket with this code and reason.
        case peerClosed(WebSocketCloseCode, reason: String)
        /// Close the transport after the writes before this action; `code` says why.
        case closeTransport(WebSocketCloseCode)
    }

    /// Where the session stands.
    public enum State: Sendable, Hashable {
        /// Reading the upgrade request.
        case handshaking
        /// WebSocket messages flow.
        case open
        /// A close frame went out (or the handshake was refused); waiting for the end.
        case closing
        /// The transport is to be closed; nothing more happens.
        case closed
    }

    private var handshake: WebSocketHandshake
    private var connection: WebSocketConnection
    /// Protocol bytes written by the `FrameConnection` that do not make a whole frame yet.
    private var pendingOutbound: [UInt8] = []
    public private(set) var state: State = .handshaking

    public init(handshake: WebSocketHandshakeConfiguration, connection: WebSocketConnection.Configuration) {
        self.handshake = WebSocketHandshake(configuration: handshake)
        self.connection = WebSocketConnection(configuration: connection)
    }

    /// Bytes read from the transport.
    public mutating func receive(_ bytes: some Collection<UInt8>) -> [Action] {
        switch state {
        case .handshaking:
            switch handshake.receive(bytes) {
            case .needMoreBytes, .ignored:
                return []
            case .reject(let rejection, let response):
                state = .closed
                return [.write(response), .rejected(rejection), .closeTransport(.policyViolation)]
            case .plainGet(let path):
                state = .closed
                return [.plainGet(path: path)]
            case .accept(let upgrade, let response, let leftover):
                state = .open
                var actions: [Action] = [.write(response), .upgraded(upgrade)]
                if !leftover.isEmpty { actions += connectionActions(connection.receive(leftover)) }
                return actions
            }
        case .open, .closing:
            return connectionActions(connection.receive(bytes))
        case .closed:
            return []
        }
    }

    /// Bytes read from the transport, straight from its read buffer (the same as
    /// ``receive(_:)-(some Collection<UInt8>)`` without a copy once the WebSocket is open).
    public mutating func receive(_ bytes: UnsafeRawBufferPointer) -> [Action] {
        switch state {
        case .open, .closing: connectionActions(connection.receive(bytes))
        case .handshaking: receive(Array(bytes))
        case .closed: []
        }
    }

    /// ``receive(_:)-(UnsafeRawBufferPointer)`` with each protocol frame handed to
    /// `protocolFrame` where it lies (valid only during the call) instead of as a
    /// ``Action/protocolFrame(_:)``: for a shell that feeds its `FrameConnection` straight from
    /// the read, without an array per frame. The other actions come back as from
    /// ``receive(_:)-(UnsafeRawBufferPointer)``, a binding violation's close among them; during
    /// the upgrade the frames that came with the request still come back as actions.
    public mutating func receive(_ bytes: UnsafeRawBufferPointer, protocolFrame: (UnsafeRawBufferPointer) -> Void) -> [Action] {
        guard state == .open || state == .closing else { return receive(bytes) }
        var brokeBinding = false
        let open = state == .open
        var actions = connectionActions(connection.receive(bytes) { message in
            guard open else { return true }  // closing: data is dropped
            guard WebSocketBinding.isOneFrame(message) else {
                brokeBinding = true
                return false
            }
            protocolFrame(message)
            return true
        })
        if brokeBinding, state == .open {
            actions += failBinding()
        }
        return actions
    }

    /// ``receive(_:protocolFrame:)`` with the protocol frames appended to `frames` back to back
    /// instead of handed over one by one: what the raw carrier reads, for a shell that feeds its
    /// `FrameConnection` once per read. A frame that arrived whole in `bytes` is copied once,
    /// unmasked on the way. The other actions come back as from ``receive(_:protocolFrame:)``, a
    /// binding violation's close among them (the frames before it stay in `frames`); during the
    /// upgrade the frames that came with the request still come back as actions.
    public mutating func receive(_ bytes: UnsafeRawBufferPointer, appendingProtocolFramesTo frames: inout [UInt8]) -> [Action] {
        guard state == .open || state == .closing else { return receive(bytes) }
        var brokeBinding = false
        var actions = connectionActions(connection.receive(bytes, appendingMessagesTo: &frames) { message in
            guard WebSocketBinding.isOneFrame(message) else {
                brokeBinding = true
                return false
            }
            return true
        })
        if brokeBinding, state == .open {
            actions += failBinding()
        }
        return actions
    }

    /// Bytes the `FrameConnection` wrote (whole frames back to back): one binary message per
    /// frame. Nothing is written once the WebSocket is closing.
    public mutating func sendProtocolBytes(_ bytes: some Collection<UInt8>) -> [Action] {
        guard state == .open else { return [] }
        pendingOutbound.append(contentsOf: bytes)
        return framePendingOutbound()
    }

    /// ``sendProtocolBytes(_:)-(some Collection<UInt8>)`` straight from the frame connection's
    /// buffer: each message is built once, header and frame, without intermediate copies.
    public mutating func sendProtocolBytes(_ bytes: UnsafeRawBufferPointer) -> [Action] {
        guard state == .open else { return [] }
        guard pendingOutbound.isEmpty else {
            pendingOutbound.append(contentsOf: bytes)
            return framePendingOutbound()
        }
        var actions: [Action] = []
        let used = frameMessages(bytes, into: &actions)
        if used < bytes.count { pendingOutbound.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[used...])) }
        return actions
    }

    /// The messages ``sendProtocolBytes(_:)-(UnsafeRawBufferPointer)`` would return, appended
    /// back to back to `buffer` instead, for a shell that writes them at once: no array per
    /// message. False, with nothing appended, when the WebSocket is not open.
    public mutating func appendProtocolMessages(_ bytes: UnsafeRawBufferPointer, to buffer: inout [UInt8]) -> Bool {
        guard state == .open else { return false }
        if pendingOutbound.isEmpty {
            let used = Self.wholeFrames(bytes) { connection.appendBinaryMessage($0, to: &buffer) }
            if used < bytes.count { pendingOutbound.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[used...])) }
        } else {
            pendingOutbound.append(contentsOf: bytes)
            let used = pendingOutbound.withUnsafeBytes { pending in Self.wholeFrames(pending) { connection.appendBinaryMessage($0, to: &buffer) } }
            dropPendingOutbound(used)
        }
        return true
    }

    private mutating func dropPendingOutbound(_ used: Int) {
        if used == pendingOutbound.count {
            pendingOutbound.removeAll(keepingCapacity: pendingOutbound.capacity <= 1 << 16)
        } else {
            pendingOutbound.removeFirst(used)
        }
    }

    /// Calls `body` with each whole protocol frame at the start of `bytes` until it returns
    /// false; returns how many bytes those frames took (a trailing partial frame is not used;
    /// after a false, all of them count as used: nothing more may be sent).
    private static func wholeFrames(_ bytes: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) -> Bool) -> Int {
        var offset = 0
        while bytes.count - offset >= WebSocketBinding.frameHeaderSize {
            var length = 0
            for index in offset..<offset + 4 { length = length << 8 | Int(bytes[index]) }
            let end = offset + WebSocketBinding.frameHeaderSize + length
            guard end <= bytes.count else { break }
            guard body(UnsafeRawBufferPointer(rebasing: bytes[offset..<end])) else { return bytes.count }
            offset = end
        }
        return offset
    }

    private mutating func framePendingOutbound() -> [Action] {
        var actions: [Action] = []
        let used = pendingOutbound.withUnsafeBytes { frameMessages($0, into: &actions) }
        dropPendingOutbound(used)
        return actions
    }

    /// One `.write` (a binary message) per whole protocol frame at the start of `bytes`;
    /// returns how many bytes those frames took.
    private func frameMessages(_ bytes: UnsafeRawBufferPointer, into actions: inout [Action]) -> Int {
        Self.wholeFrames(bytes) { frame in
            var message: [UInt8] = []
            message.reserveCapacity(frame.count + 10)
            guard connection.appendBinaryMessage(frame, to: &message) else { return false }
            actions.append(.write(message))
            return true
        }
    }

    /// Starts the closing handshake (after the protocol's last frame was sent).
    public mutating func close(_ code: WebSocketCloseCode, reason: String = "") -> [Action] {
        guard state == .open, let frame = connection.close(code, reason: reason) else { return [] }
        state = .closing
        return [.write(frame)]
    }

    /// The peer did not answer the close in time.
    public mutating func closeTimedOut() -> [Action] {
        guard state == .closing, let action = connection.closeTimedOut() else { return [] }
        state = .closed
        return connectionActions([action])
    }

    /// A ping to see whether the peer still reads (its pong arrives as nothing: the read
    /// itself is the sign of life); nil when not open.
    public func ping() -> [UInt8]? {
        state == .open ? connection.ping() : nil
    }

    /// A message that is not exactly one protocol frame: fail the WebSocket (no GOAWAY: no
    /// frame was read).
    private mutating func failBinding() -> [Action] {
        var out: [Action] = []
        if let frame = connection.close(.protocolError, reason: "a binary message must hold exactly one protocol frame") {
            out.append(.write(frame))
        }
        _ = connection.closeTimedOut()
        state = .closed
        out.append(.closeTransport(.protocolError))
        return out
    }

    private mutating func connectionActions(_ actions: [WebSocketConnection.Action]) -> [Action] {
        var out: [Action] = []
        for action in actions {
            switch action {
            case .deliver(let message):
                guard state == .open else { continue }
                if WebSocketBinding.isOneFrame(message) {
                    out.append(.protocolFrame(message))
                } else {
                    return out + failBinding()
                }
            case .write(let bytes):
                out.append(.write(bytes))
            case .pongReceived:
                break
            case .peerClosed(let code, let reason):
                out.append(.peerClosed(code, reason: reason))
            case .closeTransport(let code):
                state = .closed
                out.append(.closeTransport(code))
            }
        }
        return out
    }
}
