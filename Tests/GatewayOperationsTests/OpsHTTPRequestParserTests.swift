import Testing
@testable import GatewayOperations

@Suite("Ops HTTP request parser")
struct OpsHTTPRequestParserTests {
    let parser = OpsHTTPRequestParser(maxHeadBytes: 256, maxHeaderCount: 4)

    func parse(_ text: String) -> OpsHTTPRequestParser.Result { parser.parse(Array(text.utf8)) }

    func status(_ text: String) -> Int? {
        if case .invalid(let status, _) = parse(text) { return status.code }
        return nil
    }

    @Test("a complete request, with a query, CRLF or bare LF")
    func complete() throws {
        guard case .complete(let head, let consumed) = parse("GET /metrics?x=1 HTTP/1.1\r\nHost: a\r\nAccept:  text/plain \r\n\r\nrest") else {
            Issue.record("expected a complete head")
            return
        }
        #expect(head.method == "GET")
        #expect(head.path == "/metrics")
        #expect(head.minorVersion == 1)
        #expect(head.headers == [.init(name: "host", value: "a"), .init(name: "accept", value: "text/plain")])
        #expect(consumed == "GET /metrics?x=1 HTTP/1.1\r\nHost: a\r\nAccept:  text/plain \r\n\r\n".utf8.count)
        guard case .complete(let lf, _) = parse("\r\nHEAD /healthz HTTP/1.0\n\n") else {
            Issue.record("expected a complete head with bare line feeds")
            return
        }
        #expect(lf.method == "HEAD")
        #expect(lf.minorVersion == 0)
    }

    @Test("an incomplete head asks for more bytes, byte by byte")
    func incremental() {
        let request = Array("GET /readyz HTTP/1.1\r\nHost: a\r\n\r\n".utf8)
        for length in 0..<request.count {
            #expect(parser.parse(Array(request[0..<length])) == .needMoreBytes, "at \(length) bytes")
        }
        if case .complete = parser.parse(request) {} else { Issue.record("complete request not recognised") }
    }

    @Test("malformed request lines are 400")
    func malformedRequestLine() {
        #expect(status("GET\r\n\r\n") == 400)
        #expect(status("GET  /x HTTP/1.1\r\nHost: a\r\n\r\n") == 400)
        #expect(status("GET /x HTTP/1.1 extra\r\nHost: a\r\n\r\n") == 400)
        #expect(status("G(T /x HTTP/1.1\r\nHost: a\r\n\r\n") == 400)
        #expect(status("GET x HTTP/1.1\r\nHost: a\r\n\r\n") == 400)
        #expect(status("GET /x HTTQ/1.1\r\nHost: a\r\n\r\n") == 400)
        #expect(status("GET /\u{1}x HTTP/1.1\r\nHost: a\r\n\r\n") == 400)
        #expect(status("\u{16}\u{3}\u{1}\u{2}\u{0}\n\n") == 400, "a TLS ClientHello on the plain port")
    }

    @Test("malformed headers are 400")
    func malformedHeaders() {
        #expect(status("GET / HTTP/1.1\r\nHost a\r\n\r\n") == 400)
        #expect(status("GET / HTTP/1.1\r\nHost : a\r\n\r\n") == 400)
        #expect(status("GET / HTTP/1.1\r\nHost: a\r\n folded\r\n\r\n") == 400)
        #expect(status("GET / HTTP/1.1\r\nHost: a\u{7}\r\n\r\n") == 400)
        #expect(status("GET / HTTP/1.1\r\n\r\n") == 400, "HTTP/1.1 without Host")
        #expect(status("GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n") == 400)
    }

    @Test("other HTTP versions are 505")
    func versions() {
        #expect(status("GET / HTTP/2.0\r\n\r\n") == 505)
        #expect(status("GET / HTTP/1.2\r\n\r\n") == 505)
    }

    @Test("heads over the cap are 431, before and after the blank line")
    func sizeCap() {
        let long = "GET / HTTP/1.1\r\nHost: a\r\nX-Pad: " + String(repeating: "p", count: 300)
        #expect(status(long) == 431, "no blank line yet, already too long")
        #expect(status(long + "\r\n\r\n") == 431)
        #expect(status("GET / HTTP/1.1\r\nHost: a\r\nA: 1\r\nB: 2\r\nC: 3\r\nD: 4\r\n\r\n") == 431, "too many fields")
    }
}
