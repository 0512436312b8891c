import GatewayWebSocket
import Testing

/// ``HTTPRequestParser`` (the fleet console's requests) without I/O: whole or byte by byte,
/// the body by `Content-Length`, each limit decided before bytes beyond it are kept.
@Suite("HTTP request parser")
struct HTTPRequestParserTests {
    static let signIn = "PUT /console/session?x=1 HTTP/1.1\r\nHost: gw:7443\r\nOrigin: https://gw:7443\r\nContent-Length: 7\r\n\r\nsk_abcd"

    @Test func aWholeRequest() {
        var parser = HTTPRequestParser()
        guard case .request(let request) = parser.receive(Array(Self.signIn.utf8)) else { Issue.record("no request"); return }
        #expect(request.method == "PUT" && request.path == "/console/session" && request.query == "x=1")
        #expect(request.value("origin") == "https://gw:7443" && request.value("host") == "gw:7443")
        #expect(request.body == Array("sk_abcd".utf8))
    }

    @Test func byteByByteIsTheSame() {
        var parser = HTTPRequestParser()
        var result: HTTPRequestParser.OnReceive = .needMoreBytes
        for (index, byte) in Self.signIn.utf8.enumerated() {
            result = parser.receive([byte])
            if index < Self.signIn.utf8.count - 1 { #expect(result == .needMoreBytes, "answered early at byte \(index)") }
        }
        guard case .request(let request) = result else { Issue.record("no request: \(result)"); return }
        #expect(request.body == Array("sk_abcd".utf8))
    }

    @Test(arguments: [
        ("GET /console/ HTTP/1.0\r\nHost: a\r\n\r\n", 505),
        ("GET /console/ HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n", 411),
        ("PUT /console/session HTTP/1.1\r\nContent-Length: 5000\r\n\r\n", 413),
        ("PUT /console/session HTTP/1.1\r\nContent-Length: -1\r\n\r\n", 400),
        ("PUT /console/session HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n", 400),
        ("GET console HTTP/1.1\r\n\r\n", 400),
        ("GET /console/ HTTP/1.1\r\n bad: folding\r\n\r\n", 400),
        ("GET /console/ HTTP/1.1\r\nHost: \u{7}\r\n\r\n", 400),
    ])
    func refusals(text: String, status: Int) {
        var parser = HTTPRequestParser()
        guard case .invalid(let error) = parser.receive(Array(text.utf8)) else { Issue.record("accepted: \(text.debugDescription)"); return }
        #expect(error.status == status, "\(text.debugDescription): \(error.message)")
    }

    @Test func aHeadThatNeverEndsIsRefusedAtTheLimit() {
        var parser = HTTPRequestParser(maxHeadBytes: 64)
        #expect(parser.receive(Array("GET /console/ HTTP/1.1\r\n".utf8)) == .needMoreBytes)
        guard case .invalid(let error) = parser.receive(Array(repeating: UInt8(ascii: "a"), count: 100)) else { Issue.record("not refused"); return }
        #expect(error.status == 431)
    }
}
