import GatewayCore
import GatewayOperations
import GatewayTransport
import GatewayWebClient
import GatewayWebClientCodecs
import GatewayWebSocket
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
    /// An HTTP request for the fleet console's pages or its session (answered, then closed).
    case console(ConsoleRequestBox)
}

/// Holds a console request's parser out of line: the carrier is stored in every connection
/// (a reader's link lives for days), the parser only while a console page is asked for.
/// Touched only on the connection's event loop.
final class ConsoleRequestBox {
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
        if router.webSocket?.console != nil {
            switch Self.isConsoleRequest(bytes) {
            case nil:
                carrier = .undecided(bytes)
                return
            case true?:
                carrier = .console(ConsoleRequestBox())
                if let timeout = router.webSocket?.handshakeTimeout {
                    scheduleWebSocketTimer(after: timeout) { connection in
                        connection.router.logger.info("console request timed out", ["connection": connection.id])
                        connection.transport?.close(graceful: false)
                    }
                }
                consoleReceived(bytes)
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
        guard bytes.starts(with: probe), let configuration = router.webSocket else {
            carrier = .raw
            bytes.withUnsafeBytes { receiveFrames($0) }
            return
        }
        carrier = .webSocket(WebSocketSessionBox(configuration.makeSession(maxFrameSize: router.connectionConfiguration.localSettings.maxFrameSize)))
        // The upgrade must finish in time; a request that trickles in is cut without an answer.
        scheduleWebSocketTimer(after: configuration.handshakeTimeout) { connection in
            guard connection.webSocketState == .handshaking else { return }
            connection.router.logger.info("websocket upgrade timed out", ["connection": connection.id])
            connection.transport?.close(graceful: false)
        }
        webSocketReceived(bytes)
    }

    /// Bytes read from TLS on a WebSocket connection.
    func webSocketReceived(_ bytes: [UInt8]) {
        perform(withSession { $0.receive(bytes) })
        flush()
    }

    /// Bytes read from TLS on a WebSocket connection: each protocol frame goes to the frame
    /// connection where it lies in the session's buffer, then one flush, as on the raw carrier.
    func webSocketReceived(_ bytes: UnsafeRawBufferPointer) {
        guard case .webSocket(let box) = carrier else { return }
        box.receiving = true
        let actions = box.session.receive(bytes) { frame in
            if !closed { receiveFrames(frame, flushing: false) }
        }
        box.receiving = false
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
            if writeBuffer.capacity > 1 << 16 { writeBuffer = [] }
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
        guard let timeout = router.webSocket?.closeTimeout else { return }
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
                router.metrics.browser.webSocketUpgrades.unlabeled.increment()
            case .rejected(let rejection):
                let reason = WebSocketRefusalReason.allCases.first { $0.labelValue == rejection.kind } ?? .malformed
                router.metrics.browser.webSocketRefusals.labels(reason).increment()
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
                consoleSessionToken = ConsoleCookie.token(in: upgrade)
                // No preface on WebSocket: the subprotocol stands for it.
                FrameHeader.clientPreface.withUnsafeBytes { receiveFrames($0) }
            case .protocolFrame(let frame):
                // One flush after the whole read (webSocketReceived), as on the raw carrier,
                // not one per message.
                frame.withUnsafeBytes { receiveFrames($0, flushing: false) }
            case .plainGet(let path):
                cancelWebSocketTimer()
                _ = transport.write(Self.libraryResponse(for: path, origins: router.webSocket?.origins ?? .none))
                transport.close(graceful: true)
            case .rejected(let rejection) where rejection.kind == "path":
                // A GET for a path the gateway does not serve (no console page, library file or endpoint).
                router.logger.info("http request for an unknown path", ["connection": id, "status": 404, "reason": "\(rejection)"])
            case .rejected(let rejection):
                router.logger.info("websocket upgrade refused", ["connection": id, "reason": "\(rejection)"])
            case .peerClosed(let code, let reason):
                if router.logger.isEnabled(.debug) { router.logger.debug("websocket closed by peer", ["connection": id, "code": code.rawValue, "reason": reason]) }
            case .closeTransport:
                cancelWebSocketTimer()
                transport.close(graceful: true)
            }
        }
    }

    /// Where the browser library asks, after a failed upgrade, whether the page's origin is
    /// allowed: `GET <this><percent-encoded origin>` answers `{"origin": …, "allowed": …}`
    /// (a browser does not tell a page why its upgrade failed; the 403 is for the browser).
    static let originQueryPrefix = WebSocketCarrierConfiguration.libraryPrefix + "origins/"

    /// The answer to a plain GET under the library prefix: the file, whether an origin is
    /// allowed, or 404.
    static func libraryResponse(for path: String, origins: OriginAllowList) -> [UInt8] {
        if path.hasPrefix(originQueryPrefix) {
            let origin = percentDecoded(path.dropFirst(originQueryPrefix.count))
            let body = "{\"origin\":\(JSONText.quoted(origin)),\"allowed\":\(origins.allows(origin)),\"flag\":\"--websocket-origins\"}"
            return WebSocketHandshake.plainResponse(status: 200, contentType: "application/json", body: Array(body.utf8))
        }
        let name = String(path.dropFirst(WebSocketCarrierConfiguration.libraryPrefix.count))
        guard let file = WebClientLibrary.files[name] ?? WebClientCodecs.files[name] else {
            return WebSocketHandshake.plainResponse(status: 404, body: Array("no file \(path) in the browser library; the module to import is \(WebSocketCarrierConfiguration.libraryPrefix)readergateway.js\n".utf8))
        }
        // The TypeScript declarations are served beside the module for editors and `tsc`.
        let type = name.hasSuffix(".d.ts") ? "application/typescript; charset=utf-8" : "text/javascript; charset=utf-8"
        return WebSocketHandshake.plainResponse(status: 200, contentType: type, body: file)
    }

    /// `%XX` escapes decoded (an invalid one is kept as it is).
    static func percentDecoded(_ text: Substring) -> String {
        var bytes: [UInt8] = []
        var utf8 = Array(text.utf8)[...]
        while let byte = utf8.popFirst() {
            if byte == UInt8(ascii: "%"), utf8.count >= 2, let value = UInt8(String(decoding: utf8.prefix(2), as: UTF8.self), radix: 16) {
                bytes.append(value)
                utf8 = utf8.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
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
