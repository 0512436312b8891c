/// The server side of one WebSocket connection after the handshake (RFC 6455 §5–7): bytes
/// in, whole binary messages and bytes to write out. No I/O: the shell that owns the socket
/// performs the ``Action``s in order.
///
/// ```
///            peer close ─▶ echo it, close transport ───────────────────────┐
///   open ──┤ protocol error ─▶ close frame with its code, close transport ─┼─▶ closed
///            close(code:) ─▶ closing ──peer close / closeTimedOut()───────┘
///   any state ──transportClosed()──▶ closed
/// ```
///
/// - Only binary messages are accepted (text fails with 1003); fragmented ones are
///   reassembled up to ``Configuration/maxMessageSize`` (1009 beyond it, decided from each
///   frame's header before its payload is buffered).
/// - Pings are answered with a pong carrying the same bytes; pongs are reported.
/// - A peer's close is echoed with its code (an empty close with an empty one), then the
///   transport closes: the server closes TCP first (RFC 6455 §7.1.1).
public struct WebSocketConnection: Sendable {
    /// Limits of one connection.
    public struct Configuration: Sendable, Hashable {
        /// Largest binary message, after reassembly, in bytes.
        public var maxMessageSize: Int

        public init(maxMessageSize: Int) {
            self.maxMessageSize = maxMessageSize
        }
    }

    /// Where the connection stands.
    public enum State: Sendable, Hashable {
        /// Messages flow both ways.
        case open
        /// This side sent a close frame and waits for the peer's (incoming data is dropped).
        case closing
        /// The close handshake finished, failed, or the transport went away.
        case closed
    }

    /// What the shell does, in order.
    public enum Action: Sendable, Hashable {
        /// A complete binary message from the peer.
        case deliver([UInt8])
        /// Bytes for the transport.
        case write([UInt8])
        /// A pong arrived with this payload (liveness of the peer's reading).
        case pongReceived([UInt8])
        /// The peer closed with this code (1005 when it sent none) and reason.
        case peerClosed(WebSocketCloseCode, reason: String)
        /// After writing everything before this action, close the transport. `code` says
        /// why, for logs and metrics.
        case closeTransport(WebSocketCloseCode)
    }

    /// The result of ``send(_:)``.
    public enum OnSend: Sendable, Hashable {
        /// Write these bytes: one unmasked binary frame.
        case write([UInt8])
        /// The connection is closing or closed; nothing may be sent.
        case dropped
    }

    public let configuration: Configuration
    public private(set) var state: State = .open
    private var decoder = WebSocketFrameDecoder(role: .server)
    /// The fragments of a binary message whose last frame has not arrived.
    private var partialMessage: [UInt8]? = nil

    public init(configuration: Configuration) {
        self.configuration = configuration
    }

    /// Bytes read from the transport (including the handshake's leftover).
    public mutating func receive(_ bytes: some Sequence<UInt8>) -> [Action] {
        guard state != .closed else { return [] }
        decoder.append(bytes)
        return decodeFrames()
    }

    /// Bytes read from the transport, straight from its read buffer.
    public mutating func receive(_ bytes: UnsafeRawBufferPointer) -> [Action] {
        guard state != .closed else { return [] }
        decoder.append(bytes)
        return decodeFrames()
    }

    /// ``receive(_:)-(UnsafeRawBufferPointer)`` with each binary message handed to `deliver`
    /// (valid only during the call) instead of as a ``Action/deliver(_:)``: one that came
    /// whole in one frame where it lies, without an array of its own. `deliver` returns false to
    /// stop reading (the message broke a rule of the layer above, which now fails the
    /// connection). Everything else comes back as actions, in the order it arrived.
    public mutating func receive(_ bytes: UnsafeRawBufferPointer, deliver: (UnsafeRawBufferPointer) -> Bool) -> [Action] {
        guard state != .closed else { return [] }
        decoder.append(bytes)
        var actions: [Action] = []
        while state != .closed {
            let frame: WebSocketFrameDecoder.FrameInPlace
            do {
                guard let next = try decoder.nextFrameInPlace(maxDataPayload: configuration.maxMessageSize - (partialMessage?.count ?? 0)) else { break }
                frame = next
            } catch {
                actions += fail(error)
                break
            }
            if frame.opcode == .binary, frame.fin, partialMessage == nil, state == .open {
                guard decoder.withPayload(of: frame, deliver) else { break }
                continue
            }
            // Everything else the plain way; a message completed by its last fragment is
            // delivered the same way as the others, in its place.
            var stop = false
            for action in handle(WebSocketFrame(fin: frame.fin, opcode: frame.opcode, payload: decoder.payload(of: frame))) {
                guard case .deliver(let message) = action else {
                    actions.append(action)
                    continue
                }
                if !message.withUnsafeBytes(deliver) {
                    stop = true
                    break
                }
            }
            if stop { break }
        }
        return actions
    }

    /// ``receive(_:deliver:)`` with each binary message appended to `messages` (after what it
    /// holds) instead of handed over: a frame that lies whole in `bytes` while nothing is buffered
    /// is copied once, from the read straight to `messages`, and unmasked there, so a read's
    /// messages end up back to back for one pass of the layer above. `accept` then sees the
    /// message where it lies in `messages`; false (it broke a rule of the layer above, which
    /// now fails the connection) takes it out again and stops reading. Everything else comes
    /// back as actions, in the order it arrived.
    public mutating func receive(
        _ bytes: UnsafeRawBufferPointer, appendingMessagesTo messages: inout [UInt8], accept: (UnsafeRawBufferPointer) -> Bool
    ) -> [Action] {
        guard state != .closed else { return [] }
        guard decoder.bufferedByteCount == 0 else {
            // Part of a frame is buffered: the rest of this read goes through the decoder's buffer.
            return receive(bytes) { message in Self.append(message, to: &messages, accept) }
        }
        var actions: [Action] = []
        var offset = 0
        while state != .closed {
            let header: WebSocketFrameDecoder.Header
            do {
                let limit = configuration.maxMessageSize - (partialMessage?.count ?? 0)
                guard let next = try WebSocketFrameDecoder.header(in: bytes, at: offset, role: .server, maxDataPayload: limit) else { break }
                header = next
            } catch {
                return actions + fail(error)
            }
            let payload = UnsafeRawBufferPointer(rebasing: bytes[header.payload(at: offset)])
            let key = header.maskingKey(in: bytes, at: offset)
            offset += header.frameSize
            if header.opcode == .binary, header.fin, partialMessage == nil, state == .open {
                let start = messages.count
                messages.append(contentsOf: payload)
                messages.withUnsafeMutableBytes { WebSocketFrameDecoder.unmask(UnsafeMutableRawBufferPointer(rebasing: $0[start...]), key: key) }
                guard messages.withUnsafeBytes({ accept(UnsafeRawBufferPointer(rebasing: $0[start...])) }) else {
                    messages.removeSubrange(start...)
                    return actions
                }
                continue
            }
            // Control frames and fragments the plain way.
            var unmasked = Array(payload)
            unmasked.withUnsafeMutableBytes { WebSocketFrameDecoder.unmask($0, key: key) }
            for action in handle(WebSocketFrame(fin: header.fin, opcode: header.opcode, payload: unmasked)) {
                guard case .deliver(let message) = action else {
                    actions.append(action)
                    continue
                }
                guard message.withUnsafeBytes({ Self.append($0, to: &messages, accept) }) else { return actions }
            }
        }
        if state != .closed, offset < bytes.count { decoder.append(UnsafeRawBufferPointer(rebasing: bytes[offset...])) }
        return actions
    }

    /// Appends `message` to `messages` and asks `accept` about it there; takes it out again when refused.
    private static func append(_ message: UnsafeRawBufferPointer, to messages: inout [UInt8], _ accept: (UnsafeRawBufferPointer) -> Bool) -> Bool {
        let start = messages.count
        messages.append(contentsOf: message)
        guard messages.withUnsafeBytes({ accept(UnsafeRawBufferPointer(rebasing: $0[start...])) }) else {
            messages.removeSubrange(start...)
            return false
        }
        return true
    }

    /// The actions of every whole frame buffered.
    private mutating func decodeFrames() -> [Action] {
        var actions: [Action] = []
        while state != .closed {
            let frame: WebSocketFrame
            do {
                guard let next = try decoder.nextFrame(maxDataPayload: configuration.maxMessageSize - (partialMessage?.count ?? 0)) else { break }
                frame = next
            } catch {
                actions += fail(error)
                break
            }
            // The common case, a whole binary message in one frame, without an array of its own.
            if frame.opcode == .binary, frame.fin, partialMessage == nil, state == .open {
                actions.append(.deliver(frame.payload))
                continue
            }
            actions += handle(frame)
        }
        return actions
    }

    /// Wraps a message for the peer in one binary frame.
    public func send(_ message: some Collection<UInt8>) -> OnSend {
        guard state == .open else { return .dropped }
        return .write(WebSocketFrameEncoder.encode(WebSocketFrame(opcode: .binary, payload: Array(message))))
    }

    /// Appends `message` to `buffer` as one binary frame (what ``send(_:)`` returns, without
    /// the copies); false, with nothing appended, when the connection is not open.
    public func appendBinaryMessage(_ message: UnsafeRawBufferPointer, to buffer: inout [UInt8]) -> Bool {
        guard state == .open else { return false }
        WebSocketFrameEncoder.appendHeader(opcode: .binary, payloadCount: message.count, to: &buffer)
        buffer.append(contentsOf: message)
        return true
    }

    /// A ping for the peer (a server may probe whether the peer still reads), or nil when
    /// the connection is not open. At most 125 bytes of `payload` are sent.
    public func ping(_ payload: [UInt8] = []) -> [UInt8]? {
        guard state == .open else { return nil }
        return WebSocketFrameEncoder.encode(WebSocketFrame(opcode: .ping, payload: Array(payload.prefix(125))))
    }

    /// Starts the closing handshake: write the returned close frame, then wait for the
    /// peer's close (``Action/closeTransport(_:)`` arrives from ``receive(_:)``) or for
    /// your timer (``closeTimedOut()``). Nil when the connection is not open.
    public mutating func close(_ code: WebSocketCloseCode, reason: String = "") -> [UInt8]? {
        guard state == .open else { return nil }
        state = .closing
        partialMessage = nil
        return WebSocketFrameEncoder.encode(WebSocketFrame(opcode: .close, payload: WebSocketFrameEncoder.closePayload(code, reason: reason)))
    }

    /// The peer did not answer a close in time: close the transport.
    public mutating func closeTimedOut() -> Action? {
        guard state == .closing else { return nil }
        state = .closed
        return .closeTransport(.abnormalClosure)
    }

    /// The transport ended (EOF or error). Returns the code to report: 1006 unless the
    /// close handshake had finished.
    public mutating func transportClosed() -> WebSocketCloseCode {
        let wasClosed = state == .closed
        state = .closed
        partialMessage = nil
        return wasClosed ? .normalClosure : .abnormalClosure
    }

    private mutating func handle(_ frame: WebSocketFrame) -> [Action] {
        switch frame.opcode {
        case .ping:
            guard state == .open else { return [] }
            return [.write(WebSocketFrameEncoder.encode(WebSocketFrame(opcode: .pong, payload: frame.payload)))]
        case .pong:
            return [.pongReceived(frame.payload)]
        case .close:
            return receivedClose(frame.payload)
        case .binary:
            guard partialMessage == nil else {
                return fail(WebSocketProtocolError(.protocolError, "new message before the last one's final fragment"))
            }
            if frame.fin { return state == .open ? [.deliver(frame.payload)] : [] }
            partialMessage = frame.payload
            return []
        default:  // .continuation (text never gets here: the decoder refuses it)
            guard var message = partialMessage else {
                return fail(WebSocketProtocolError(.protocolError, "continuation frame without a message to continue"))
            }
            message.append(contentsOf: frame.payload)
            if !frame.fin {
                partialMessage = message
                return []
            }
            partialMessage = nil
            return state == .open ? [.deliver(message)] : []
        }
    }

    private mutating func receivedClose(_ payload: [UInt8]) -> [Action] {
        var code = WebSocketCloseCode.noStatusReceived
        var reason = ""
        if payload.count == 1 { return fail(WebSocketProtocolError(.protocolError, "close payload of one byte")) }
        if payload.count >= 2 {
            code = WebSocketCloseCode(rawValue: UInt16(payload[0]) << 8 | UInt16(payload[1]))
            guard code.isValidOnTheWire else { return fail(WebSocketProtocolError(.protocolError, "invalid close code \(code.rawValue)")) }
            guard let text = String(validating: payload[2...], as: UTF8.self) else {
                return fail(WebSocketProtocolError(.invalidPayload, "close reason is not UTF-8"))
            }
            reason = text
        }
        let wasOpen = state == .open
        state = .closed
        partialMessage = nil
        var actions: [Action] = [.peerClosed(code, reason: reason)]
        if wasOpen {
            let echo = code == .noStatusReceived ? [] : WebSocketFrameEncoder.closePayload(code, reason: "")
            actions.append(.write(WebSocketFrameEncoder.encode(WebSocketFrame(opcode: .close, payload: echo))))
        }
        actions.append(.closeTransport(code == .noStatusReceived ? .normalClosure : code))
        return actions
    }

    /// Fails the connection (RFC 6455 §7.1.7): a close frame with the error's code when
    /// this side has not sent one yet, then the transport closes without waiting.
    private mutating func fail(_ error: WebSocketProtocolError) -> [Action] {
        let wasOpen = state == .open
        state = .closed
        partialMessage = nil
        var actions: [Action] = []
        if wasOpen {
            let payload = WebSocketFrameEncoder.closePayload(error.closeCode, reason: error.reason)
            actions.append(.write(WebSocketFrameEncoder.encode(WebSocketFrame(opcode: .close, payload: payload))))
        }
        actions.append(.closeTransport(error.closeCode))
        return actions
    }
}
