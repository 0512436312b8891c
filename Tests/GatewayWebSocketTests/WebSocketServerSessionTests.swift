import GatewayWebSocket
import Testing

@Suite("WebSocket server session")
struct WebSocketServerSessionTests {
    static let request = WebSocketHandshakeTests.request(replacing: ["Origin": nil])
    static let settings: [UInt8] = [0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0x08, 0x01]
    static let halfClose: [UInt8] = [0, 0, 0, 0, 3, 0, 0, 0, 0, 1]

    func session() -> WebSocketServerSession {
        WebSocketServerSession(handshake: .init(), connection: .init(maxMessageSize: 1024))
    }

    func open() -> WebSocketServerSession {
        var session = session()
        _ = session.receive(Array(Self.request.utf8))
        return session
    }

    @Test("the upgrade, then one protocol frame per binary message, even when they arrive with the request")
    func upgradeAndFrames() {
        var session = session()
        let bytes = Array(Self.request.utf8) + WebSocketConnectionTests.client(.binary, Self.settings)
        let actions = session.receive(bytes)
        #expect(actions.count == 3)
        guard case .write(let response) = actions[0], case .upgraded(let upgrade) = actions[1] else {
            Issue.record("no upgrade: \(actions)")
            return
        }
        #expect(String(decoding: response, as: UTF8.self).hasPrefix("HTTP/1.1 101 "))
        #expect(upgrade.subprotocol == "readergateway.v1")
        #expect(actions[2] == .protocolFrame(Self.settings))
        #expect(session.state == .open)
        #expect(session.receive(WebSocketConnectionTests.client(.binary, Self.halfClose)) == [.protocolFrame(Self.halfClose)])
    }

    @Test("a refused upgrade writes its response and closes")
    func refused() {
        var session = session()
        let actions = session.receive(Array(WebSocketHandshakeTests.request(replacing: ["Sec-WebSocket-Version": "8"]).utf8))
        #expect(actions.count == 3)
        #expect(actions[1] == .rejected(.unsupportedVersion))
        #expect(actions[2] == .closeTransport(.policyViolation))
        #expect(session.state == .closed)
        #expect(session.receive([1, 2, 3]) == [])
    }

    @Test("a plain GET under the prefix is handed to the shell, which answers and closes")
    func plainGet() {
        var session = WebSocketServerSession(handshake: .init(plainGetPrefix: "/readergateway/v1/js/"), connection: .init(maxMessageSize: 1024))
        let actions = session.receive(Array("GET /readergateway/v1/js/terminal.js HTTP/1.1\r\nHost: a\r\n\r\n".utf8))
        #expect(actions == [.plainGet(path: "/readergateway/v1/js/terminal.js")])
        #expect(session.state == .closed)
    }

    @Test("the protocol's output becomes one unmasked binary message per frame; a partial frame waits")
    func outbound() {
        var session = open()
        let output = Self.settings + Self.halfClose
        #expect(session.sendProtocolBytes(output + Self.settings.prefix(3)) == [
            .write([0x82, 12] + Self.settings),
            .write([0x82, 10] + Self.halfClose),
        ])
        #expect(session.sendProtocolBytes(Self.settings.dropFirst(3)) == [.write([0x82, 12] + Self.settings)])
    }

    @Test("a binary message that is not exactly one frame fails the WebSocket with 1002")
    func notOneFrame() {
        var session = open()
        let actions = session.receive(WebSocketConnectionTests.client(.binary, Self.settings + Self.halfClose))
        #expect(actions.last == .closeTransport(.protocolError))
        guard case .write(let close) = actions.first else {
            Issue.record("no close frame")
            return
        }
        #expect(Array(close.prefix(4)) == [0x88, UInt8(close.count - 2), 0x03, 0xEA])
        #expect(session.state == .closed)
        #expect(session.sendProtocolBytes(Self.settings) == [])
    }

    @Test("a WebSocket violation ends the session with its close code, the protocol sees nothing")
    func violation() {
        var session = open()
        let actions = session.receive(WebSocketConnectionTests.client(.text, Array("{}".utf8)))
        #expect(actions.last == .closeTransport(.unsupportedData))
        #expect(!actions.contains { if case .protocolFrame = $0 { true } else { false } })
    }

    @Test("closing after the protocol's GOAWAY: close frame, then the peer's answer closes the transport")
    func closeAfterGoAway() {
        var session = open()
        let code = WebSocketBinding.closeCode(afterGoAwayReason: 113, shuttingDown: true)
        #expect(session.close(code, reason: "drain") == [.write(WebSocketConnectionTests.closeFrame(1001, "drain"))])
        #expect(session.state == .closing)
        #expect(session.sendProtocolBytes(Self.settings) == [])
        let actions = session.receive(WebSocketConnectionTests.client(.close, [0x03, 0xE9]))
        #expect(actions == [.peerClosed(.goingAway, reason: ""), .closeTransport(.goingAway)])
        #expect(session.state == .closed)
    }

    @Test("a peer that never answers the close is cut off")
    func closeTimeout() {
        var session = open()
        _ = session.close(.normalClosure)
        #expect(session.closeTimedOut() == [.closeTransport(.abnormalClosure)])
        #expect(session.state == .closed)
    }

    @Test("GOAWAY reasons map to close codes")
    func closeCodes() {
        #expect(WebSocketBinding.closeCode(afterGoAwayReason: 113, shuttingDown: false) == .normalClosure)
        #expect(WebSocketBinding.closeCode(afterGoAwayReason: 113, shuttingDown: true) == .goingAway)
        #expect(WebSocketBinding.closeCode(afterGoAwayReason: 101, shuttingDown: false) == .messageTooBig)
        #expect(WebSocketBinding.closeCode(afterGoAwayReason: 109, shuttingDown: false) == .messageTooBig)
        #expect(WebSocketBinding.closeCode(afterGoAwayReason: 115, shuttingDown: false) == .policyViolation)
        #expect(WebSocketBinding.closeCode(afterGoAwayReason: 100, shuttingDown: false) == .protocolError)
        #expect(WebSocketBinding.closeCode(afterGoAwayReason: 108, shuttingDown: false) == .protocolError)
        #expect(WebSocketBinding.closeCode(afterGoAwayReason: 57, shuttingDown: false) == .internalError)
    }
}
