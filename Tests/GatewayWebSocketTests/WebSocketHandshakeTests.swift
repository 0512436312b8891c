import GatewayWebSocket
import Testing

@Suite("WebSocket handshake")
struct WebSocketHandshakeTests {
    static let configuration = WebSocketHandshakeConfiguration(origins: .only(["https://pos.example.com", "http://localhost:8080"]))

    /// RFC 6455 §1.3's request, on this binding's path and subprotocol.
    static func request(
        requestLine: String = "GET /readergateway/v1/websocket HTTP/1.1",
        replacing: [String: String?] = [:],
        extra: [String] = []
    ) -> String {
        var headers: [(String, String?)] = [
            ("Host", "server.example.com"),
            ("Upgrade", "websocket"),
            ("Connection", "Upgrade"),
            ("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ=="),
            ("Origin", "https://pos.example.com"),
            ("Sec-WebSocket-Protocol", "chat, readergateway.v1"),
            ("Sec-WebSocket-Version", "13"),
        ]
        headers = headers.map { name, value in (name, replacing.keys.contains(name) ? replacing[name]! : value) }
        var text = requestLine + "\r\n"
        for case let (name, value?) in headers { text += "\(name): \(value)\r\n" }
        for line in extra { text += line + "\r\n" }
        return text + "\r\n"
    }

    func verdict(_ text: String, configuration: WebSocketHandshakeConfiguration = configuration) -> WebSocketHandshake.OnReceive {
        var handshake = WebSocketHandshake(configuration: configuration)
        return handshake.receive(Array(text.utf8))
    }

    func status(_ text: String, configuration: WebSocketHandshakeConfiguration = configuration) -> Int? {
        switch verdict(text, configuration: configuration) {
        case .accept: 101
        case .reject(let rejection, _): rejection.status
        default: nil
        }
    }

    @Test("RFC 6455 §1.3: the accept value of the sample nonce")
    func acceptValue() {
        #expect(WebSocketHandshake.acceptValue(forKey: "dGhlIHNhbXBsZSBub25jZQ==") == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
    }

    @Test("a valid request gets exactly the 101 of RFC 6455 §1.3, with the subprotocol")
    func accepts() {
        guard case .accept(let upgrade, let response, let leftover) = verdict(Self.request()) else {
            Issue.record("not accepted")
            return
        }
        #expect(upgrade.host == "server.example.com")
        #expect(upgrade.origin == "https://pos.example.com")
        #expect(upgrade.subprotocol == "readergateway.v1")
        #expect(leftover.isEmpty)
        #expect(
            String(decoding: response, as: UTF8.self)
                == "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\nSec-WebSocket-Protocol: readergateway.v1\r\n\r\n"
        )
    }

    @Test("byte by byte: need more bytes until the blank line, then the verdict; bytes after the head are leftover")
    func incremental() {
        var handshake = WebSocketHandshake(configuration: Self.configuration)
        let bytes = Array(Self.request().utf8)
        for byte in bytes.dropLast() {
            #expect(handshake.receive([byte]) == .needMoreBytes)
        }
        guard case .accept(_, _, let leftover) = handshake.receive([bytes.last!] + [0x82, 0x80]) else {
            Issue.record("not accepted")
            return
        }
        #expect(leftover == [0x82, 0x80])
        #expect(handshake.state == .accepted)
        #expect(handshake.receive([1, 2, 3]) == .ignored)
    }

    @Test("header names and tokens are case-insensitive; repeated and listed tokens are found")
    func caseAndLists() {
        let text = "GET /readergateway/v1/websocket?lane=3 HTTP/1.1\r\nhost: a\r\nUPGRADE: WebSocket\r\nconnection: keep-alive , UPGRADE\r\n"
            + "sec-websocket-key: AQIDBAUGBwgJCgsMDQ4PEA==\r\nsec-websocket-version: 13\r\nsec-websocket-protocol: other\r\n"
            + "Sec-WebSocket-Protocol: readergateway.v1\r\n\r\n"
        guard case .accept(let upgrade, _, _) = verdict(text) else {
            Issue.record("not accepted")
            return
        }
        #expect(upgrade.target == "/readergateway/v1/websocket?lane=3")
        #expect(upgrade.origin == nil)
    }

    static let badRequests: [(String, Int)] = [
        (request(requestLine: "POST /readergateway/v1/websocket HTTP/1.1"), 405),
        (request(requestLine: "GET /readergateway/v1/websocket HTTP/1.0"), 505),
        (request(requestLine: "GET /other HTTP/1.1"), 404),
        (request(requestLine: "GET http://x/readergateway/v1/websocket HTTP/1.1"), 400),
        (request(requestLine: "GET  /readergateway/v1/websocket HTTP/1.1"), 400),
        (request(requestLine: "GET /readergateway/v1/websocket"), 400),
        (request(requestLine: "GET /readergateway/v1/websocket HTTP/1.1 x"), 400),
        (request(replacing: ["Upgrade": nil]), 426),
        (request(replacing: ["Upgrade": "h2c"]), 426),
        (request(replacing: ["Connection": "keep-alive"]), 400),
        (request(replacing: ["Connection": nil]), 400),
        (request(replacing: ["Sec-WebSocket-Version": "8"]), 426),
        (request(replacing: ["Sec-WebSocket-Version": nil]), 426),
        (request(extra: ["Sec-WebSocket-Version: 13"]), 426),
        (request(replacing: ["Sec-WebSocket-Key": nil]), 400),
        (request(replacing: ["Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ"]), 400),
        (request(replacing: ["Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZXg="]), 400),
        (request(extra: ["Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ=="]), 400),
        (request(replacing: ["Host": nil]), 400),
        (request(extra: ["Host: other"]), 400),
        (request(replacing: ["Origin": "https://evil.example"]), 403),
        (request(replacing: ["Origin": "null"]), 403),
        (request(extra: ["Origin: https://pos.example.com"]), 400),
        (request(replacing: ["Sec-WebSocket-Protocol": nil]), 400),
        (request(replacing: ["Sec-WebSocket-Protocol": "readergateway.v2"]), 400),
        (request(extra: [" folded"]), 400),
        (request(extra: ["no colon here"]), 400),
        (request(extra: ["bad name: x"]), 400),
        (request(extra: ["X-Control: a\u{1}b"]), 400),
        (request(requestLine: "GET /readergateway/v1/websocket HTTP/1.1\u{E9}"), 400),
    ]

    @Test("each bad request gets its precise status", arguments: Self.badRequests)
    func rejections(text: String, expected: Int) {
        #expect(status(text) == expected, "\(text)")
    }

    /// The rejection and its response text, or nil when `text` is not rejected.
    func refusal(of text: String) -> (WebSocketHandshakeRejection, response: String)? {
        guard case .reject(let rejection, let response) = verdict(text) else { return nil }
        return (rejection, String(decoding: response, as: UTF8.self))
    }

    @Test("refusals carry the headers RFC 6455 and RFC 9110 ask for, and a body that says what to do")
    func rejectionResponses() throws {
        let (rejection, text) = try #require(refusal(of: Self.request(replacing: ["Sec-WebSocket-Version": "8"])))
        #expect(rejection == .unsupportedVersion)
        #expect(text.hasPrefix("HTTP/1.1 426 Upgrade Required\r\nSec-WebSocket-Version: 13\r\n"))
        #expect(text.contains("Connection: close\r\n"))
        #expect(text.hasSuffix("\r\n\r\n" + rejection.message + "\n"))
        #expect(text.contains("Content-Length: \(rejection.message.utf8.count + 1)\r\n"))

        let put = try #require(refusal(of: Self.request(requestLine: "PUT /readergateway/v1/websocket HTTP/1.1")))
        #expect(put.response.contains("\r\nAllow: GET\r\n"))
        let plain = try #require(refusal(of: Self.request(replacing: ["Upgrade": nil])))
        #expect(plain.response.contains("\r\nUpgrade: websocket\r\n"))
    }

    @Test("a head over the byte limit gets 431 as soon as the limit passes, without its end")
    func headTooLarge() {
        let configuration = WebSocketHandshakeConfiguration(origins: .any, maxHeadBytes: 300)
        var handshake = WebSocketHandshake(configuration: configuration)
        let padding = "X-Padding: " + String(repeating: "a", count: 100) + "\r\n"
        #expect(handshake.receive(Array("GET /readergateway/v1/websocket HTTP/1.1\r\n".utf8)) == .needMoreBytes)
        #expect(handshake.receive(Array(padding.utf8)) == .needMoreBytes)
        #expect(handshake.receive(Array(padding.utf8)) == .needMoreBytes)
        guard case .reject(let rejection, _) = handshake.receive(Array(padding.utf8)) else {
            Issue.record("not rejected at the limit")
            return
        }
        #expect(rejection.status == 431)
        #expect(handshake.state == .rejected)
        // One large read: refused at once as well.
        #expect(status(String(repeating: "A", count: 10_000), configuration: configuration) == 431)
        // A complete head one byte over the limit, and one exactly at it.
        let exact = Self.request(extra: [])
        let tight = WebSocketHandshakeConfiguration(origins: .any, maxHeadBytes: exact.utf8.count)
        #expect(status(exact, configuration: tight) == 101)
        let over = WebSocketHandshakeConfiguration(origins: .any, maxHeadBytes: exact.utf8.count - 1)
        #expect(status(exact, configuration: over) == 431)
    }

    @Test("a head and a large first frame in one read: the head fits, the frame is leftover in full")
    func headWithLargeFrame() {
        let head = Array(Self.request().utf8)
        let frame = [UInt8](repeating: 0xAB, count: 20_000)
        var handshake = WebSocketHandshake(configuration: .init(origins: .any, maxHeadBytes: head.count + 10))
        guard case .accept(_, _, let leftover) = handshake.receive(head + frame) else {
            Issue.record("not accepted")
            return
        }
        #expect(leftover == frame)
    }

    @Test("a plain GET under the configured prefix is handed over; without the prefix, or escaping it, it is refused")
    func plainGet() {
        let configuration = WebSocketHandshakeConfiguration(origins: .none, plainGetPrefix: "/readergateway/v1/js/")
        let get = "GET /readergateway/v1/js/readergateway.js?v=1 HTTP/1.1\r\nHost: a\r\n\r\n"
        #expect(verdict(get, configuration: configuration) == .plainGet(path: "/readergateway/v1/js/readergateway.js"))
        #expect(status(get, configuration: Self.configuration) == 404)
        #expect(status("GET /readergateway/v1/js/../secret HTTP/1.1\r\nHost: a\r\n\r\n", configuration: configuration) == 404)
        #expect(status("GET /readergateway/v1/js/x.js HTTP/1.1\r\n\r\n", configuration: configuration) == 400)
        #expect(status("POST /readergateway/v1/js/x.js HTTP/1.1\r\nHost: a\r\n\r\n", configuration: configuration) == 405)
        // The upgrade path still upgrades.
        #expect(status(Self.request(replacing: ["Origin": nil]), configuration: configuration) == 101)
        let response = String(decoding: WebSocketHandshake.plainResponse(status: 200, contentType: "text/javascript; charset=utf-8", body: Array("x".utf8)), as: UTF8.self)
        #expect(response.hasPrefix("HTTP/1.1 200 OK\r\nContent-Type: text/javascript; charset=utf-8\r\nContent-Length: 1\r\n"))
        #expect(response.hasSuffix("Connection: close\r\n\r\nx"))
        #expect(String(decoding: WebSocketHandshake.plainResponse(status: 404, body: []), as: UTF8.self).hasPrefix("HTTP/1.1 404 Not Found\r\n"))
    }

    @Test("more header fields than the limit get 431")
    func tooManyHeaders() {
        let configuration = WebSocketHandshakeConfiguration(origins: .any, maxHeaderCount: 10)
        #expect(status(Self.request(extra: ["A: 1", "B: 2", "C: 3"]), configuration: configuration) == 101)
        #expect(status(Self.request(extra: ["A: 1", "B: 2", "C: 3", "D: 4"]), configuration: configuration) == 431)
    }

    @Test("no Origin (not a browser) passes any list; the list .any lets every origin in")
    func origins() {
        #expect(status(Self.request(replacing: ["Origin": nil]), configuration: .init(origins: .none)) == 101)
        #expect(status(Self.request(), configuration: .init(origins: .none)) == 403)
        #expect(status(Self.request(replacing: ["Origin": "https://anything.example"]), configuration: .init(origins: .any)) == 101)
        #expect(status(Self.request(replacing: ["Origin": "HTTP://LOCALHOST:8080"])) == 101)
    }

    /// A page the gateway served itself (`Origin` is `https://<Host>`) may upgrade whatever the
    /// allow-list says, and the upgrade carries its cookie.
    @Test func theGatewaysOwnOriginAndTheCookie() {
        let none = WebSocketHandshakeConfiguration(origins: .none)
        let own = Self.request(replacing: ["Host": "gw.example:7443", "Origin": "https://gw.example:7443"], extra: ["Cookie: a=1", "Cookie: rg_console=cs_x"])
        guard case .accept(let upgrade, _, _) = verdict(own, configuration: none) else { Issue.record("the gateway's own origin was refused"); return }
        #expect(upgrade.cookie == "a=1; rg_console=cs_x")
        #expect(status(Self.request(replacing: ["Host": "gw.example:7443", "Origin": "http://gw.example:7443"]), configuration: none) == 403)
        #expect(status(Self.request(replacing: ["Host": "gw.example:7443", "Origin": "https://other.example:7443"]), configuration: none) == 403)
        guard case .accept(let plain, _, _) = verdict(Self.request()) else { Issue.record("refused"); return }
        #expect(plain.cookie == nil)
    }
}
