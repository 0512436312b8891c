import GatewayCore
import GatewayTransport
import GatewayWebSocket
import GatewayChannel
import GatewayWire

/// What carries a connection's protocol frames (PROTOCOL.md sections 1 and 15), decided by
/// the client's first bytes: `RGW1` (the preface) is the raw protocol, `GET ` is HTTP (the
/// WebSocket upgrade, or a plain GET of the browser library).
enum FrameCarrier {
    /// Fewer than four bytes arrived, all a prefix of `GET `: kept until the rest says which.
    case undecided([UInt8])
    /// Frames straight on TLS.
    case raw
    /// One frame per binary WebSocket message; the session is the binding's state machine.
    case webSocket(WebSocketSessionBox)
    /// An HTTP request the port's ``PlainHTTPResponder`` claims (the fleet console's pages or
    /// its session): answered, then closed.
    case http(HTTPRequestBox)
}

/// Holds a plain HTTP request's parser out of line: the carrier is stored in every connection
/// (a reader's link lives for days), the parser only while a request is read.
/// Touched only on the connection's event loop.
final class HTTPRequestBox {
    var parser = HTTPRequestParser()
}

/// Holds a connection's WebSocket session so that the carrier's switch copies one reference,
/// not the session's buffers, and the session is mutated in place. Touched only on the
/// connection's event loop (as ``ServerConnection`` is).
final class WebSocketSessionBox {
    var session: WebSocketServerSession
    /// The session is handing a read's protocol frames to the frame connection: a flush they
    /// cause waits for the one after the read (the session must not be entered twice).
    var receiving = false
    /// The binary messages of one flush, back to back (reused from flush to flush).
    var outbound: [UInt8] = []
    /// The protocol frames of one read, back to back (reused from read to read).
    var inbound: [UInt8] = []

    init(_ session: WebSocketServerSession) {
        self.session = session
    }
}

/// The WebSocket binding's I/O shell: `WebSocketServerSession` decides, this performs its
/// actions on the transport and the frame connection. Everything runs on ``loop``.
extension ServerConnection {
    private static let httpGet: [UInt8] = Array("GET ".utf8)

    /// Looks at the first bytes and commits to a carrier.
    func decideCarrier(_ bytes: [UInt8]) {
        if let responder = server.webSocket?.http {
            switch responder.claims(bytes) {
            case nil:
                carrier = .undecided(bytes)
                return
            case true?:
                carrier = .http(HTTPRequestBox())
                if let timeout = server.webSocket?.handshakeTimeout {
                    scheduleWebSocketTimer(after: timeout) { connection in
                        connection.server.logger.info("http request timed out", ["connection": connection.id])
                        connection.transport?.close(graceful: false)
                    }
                }
                httpReceived(bytes)
                return
            case false?:
                break
            }
        }
        let probe = Self.httpGet
        if bytes.count < probe.count, bytes.elementsEqual(probe.prefix(bytes.count)) {
            carrier = .undecided(bytes)
            return
        }
        guard bytes.starts(with: probe), let configuration = server.webSocket else {
            carrier = .raw
            bytes.withUnsafeBytes { receiveFrames($0) }
            return
        }
        carrier = .webSocket(WebSocketSessionBox(configuration.makeSession(maxFrameSize: server.connectionConfiguration.localSettings.maxFrameSize)))
        // The upgrade must finish in time; a request that trickles in is cut without an answer.
        scheduleWebSocketTimer(after: configuration.handshakeTimeout) { connection in
            guard connection.webSocketState == .handshaking else { return }
            connection.server.logger.info("websocket upgrade timed out", ["connection": connection.id])
            connection.transport?.close(graceful: false)
        }
        webSocketReceived(bytes)
    }

    /// Bytes read from TLS on a WebSocket connection.
    func webSocketReceived(_ bytes: [UInt8]) {
        perform(withSession { $0.receive(bytes) })
        flush()
    }

    /// Bytes read from TLS on a WebSocket connection: the read's protocol frames, unmasked into
    /// one buffer back to back, go to the frame connection in one pass, then one flush, as on
    /// the raw carrier.
    func webSocketReceived(_ bytes: UnsafeRawBufferPointer) {
        guard case .webSocket(let box) = carrier else { return }
        // Out of the box while in use: nothing else may see it half filled.
        var inbound = box.inbound
        box.inbound = []
        inbound.removeAll(keepingCapacity: true)
        box.receiving = true
        let actions = box.session.receive(bytes, appendingProtocolFramesTo: &inbound)
        if !inbound.isEmpty, !closed { inbound.withUnsafeBytes { receiveFrames($0, flushing: false) } }
        box.receiving = false
        if inbound.capacity <= 1 << 16 { box.inbound = inbound }
        perform(actions)
        flush()
    }

    /// ``flush()`` for WebSocket: the frame connection's output as binary messages, then the
    /// closing handshake once the frame connection ended (its GOAWAY is the message before).
    func flushWebSocket() {
        guard let transport, !closed else { return }
        guard case .webSocket(let box) = carrier, !box.receiving else { return }
        if frames.hasOutbound, box.session.state != .handshaking {
            // The frame connection's output as one binary message per frame, all in one write.
            frames.takeOutbound(into: &writeBuffer)
            box.outbound.removeAll(keepingCapacity: true)
            let open = writeBuffer.withUnsafeBytes { box.session.appendProtocolMessages($0, to: &box.outbound) }
            if open, !box.outbound.isEmpty { _ = transport.write(box.outbound) }
            // As on the raw carrier: the storage goes back to the frame connection.
            frames.returnOutboundStorage(&writeBuffer)
            if box.outbound.capacity > 1 << 16 { box.outbound = [] }
        }
        guard frames.state == .closed else {
            armTimer()
            return
        }
        guard webSocketState == .open else {
            // Before the upgrade there is nothing to say; after the close handshake began, its end closes.
            if webSocketState != .closing { transport.close(graceful: true) }
            return
        }
        let code = WebSocketBinding.closeCode(afterGoAwayReason: Int(closedReason?.rawValue ?? 0), shuttingDown: shuttingDown)
        perform(withSession { $0.close(code) })
        guard let timeout = server.webSocket?.closeTimeout else { return }
        scheduleWebSocketTimer(after: timeout) { connection in
            connection.perform(connection.withSession { $0.closeTimedOut() })
        }
    }

    /// Performs the session's actions in order.
    private func perform(_ actions: [WebSocketServerSession.Action]) {
        // Counted before the answer is written, so whoever reads the answer finds it counted.
        for action in actions {
            switch action {
            case .upgraded:
                server.metrics.webSocketUpgraded()
            case .rejected(let rejection):
                server.metrics.webSocketRefused(kind: rejection.kind)
            default:
                break
            }
        }
        for action in actions {
            guard let transport, !closed else { return }
            switch action {
            case .write(let bytes):
                _ = transport.write(bytes)
            case .upgraded(let upgrade):
                cancelWebSocketTimer()
                consoleSessionToken = server.webSocket?.http?.sessionToken(in: upgrade)
                consoleUserAgent = consoleSessionToken == nil ? nil : upgrade.userAgent
                // No preface on WebSocket: the subprotocol stands for it.
                FrameHeader.clientPreface.withUnsafeBytes { receiveFrames($0) }
            case .protocolFrame(let frame):
                // One flush after the whole read (webSocketReceived), as on the raw carrier,
                // not one per message.
                frame.withUnsafeBytes { receiveFrames($0, flushing: false) }
            case .plainGet(let path):
                cancelWebSocketTimer()
                _ = transport.write(plainGetResponse(for: path))
                transport.close(graceful: true)
            case .rejected(let rejection) where rejection.kind == "path":
                // A GET for a path the gateway does not serve (no console page, library file or endpoint).
                server.logger.info("http request for an unknown path", ["connection": id, "status": 404, "reason": "\(rejection)"])
            case .rejected(let rejection):
                server.logger.info("websocket upgrade refused", ["connection": id, "reason": "\(rejection)"])
            case .peerClosed(let code, let reason):
                if server.logger.isEnabled(.debug) { server.logger.debug("websocket closed by peer", ["connection": id, "code": code.rawValue, "reason": reason]) }
            case .closeTransport:
                cancelWebSocketTimer()
                transport.close(graceful: true)
            }
        }
    }

    /// The answer to a plain GET under the library prefix: the responder's, or 404 without one.
    private func plainGetResponse(for path: String) -> [UInt8] {
        guard let configuration = server.webSocket, let responder = configuration.http else {
            return WebSocketHandshake.plainResponse(status: 404, body: Array("no file \(path): this port serves no files\n".utf8))
        }
        return responder.plainGet(path, origins: configuration.origins)
    }

    /// The session's state (nil: not WebSocket).
    private var webSocketState: WebSocketServerSession.State? {
        guard case .webSocket(let box) = carrier else { return nil }
        return box.session.state
    }

    /// Runs `body` on the session in place (its box holds the only copy).
    private func withSession(_ body: (inout WebSocketServerSession) -> [WebSocketServerSession.Action]) -> [WebSocketServerSession.Action] {
        guard case .webSocket(let box) = carrier else { return [] }
        return body(&box.session)
    }

    func scheduleWebSocketTimer(after delay: Duration, _ body: @escaping @Sendable (ServerConnection) -> Void) {
        webSocketTimer?.cancel()
        webSocketTimer = loop.schedule(after: delay) { [self] in
            webSocketTimer = nil
            guard !closed else { return }
            body(self)
        }
    }

    func cancelWebSocketTimer() {
        webSocketTimer?.cancel()
        webSocketTimer = nil
    }
}
