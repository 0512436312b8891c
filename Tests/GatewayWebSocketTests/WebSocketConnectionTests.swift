import GatewayTestKit
import GatewayWebSocket
import Testing

@Suite("WebSocket connection")
struct WebSocketConnectionTests {
    static let key: [UInt8] = [0x37, 0xFA, 0x21, 0x3D]

    /// A frame as a client sends it (masked).
    static func client(_ opcode: WebSocketOpcode, _ payload: [UInt8] = [], fin: Bool = true) -> [UInt8] {
        WebSocketFrameEncoder.encode(WebSocketFrame(fin: fin, opcode: opcode, payload: payload), maskingKey: key)
    }

    /// A frame as the server writes it (unmasked).
    static func server(_ opcode: WebSocketOpcode, _ payload: [UInt8] = []) -> [UInt8] {
        WebSocketFrameEncoder.encode(WebSocketFrame(opcode: opcode, payload: payload))
    }

    static func closeFrame(_ code: UInt16, _ reason: String = "") -> [UInt8] {
        server(.close, [UInt8(code >> 8), UInt8(code & 0xFF)] + Array(reason.utf8))
    }

    func connection(limit: Int = 1024) -> WebSocketConnection {
        WebSocketConnection(configuration: .init(maxMessageSize: limit))
    }

    /// The close code the server sent and closed the transport with.
    func failure(_ bytes: [UInt8], limit: Int = 1024) -> UInt16? {
        var connection = connection(limit: limit)
        let actions = connection.receive(bytes)
        guard case .closeTransport(let code)? = actions.last else { return nil }
        guard case .write(let frame)? = actions.dropLast().last else { return nil }
        #expect(Array(frame.prefix(4)) == [0x88, UInt8(frame.count - 2), UInt8(code.rawValue >> 8), UInt8(code.rawValue & 0xFF)])
        #expect(connection.state == .closed)
        return code.rawValue
    }

    @Test("a binary message is delivered; a reply is one unmasked binary frame")
    func binary() {
        var connection = connection()
        #expect(connection.receive(Self.client(.binary, [1, 2, 3])) == [.deliver([1, 2, 3])])
        #expect(connection.send([4, 5]) == .write([0x82, 0x02, 4, 5]))
        #expect(connection.receive(Self.client(.binary)) == [.deliver([])])
    }

    @Test("fragments are reassembled, with a ping answered between them")
    func fragments() {
        var connection = connection()
        var bytes = Self.client(.binary, [1], fin: false)
        bytes += Self.client(.ping, [9, 9])
        bytes += Self.client(.continuation, [2], fin: false)
        bytes += Self.client(.continuation, [3])
        #expect(connection.receive(bytes) == [.write(Self.server(.pong, [9, 9])), .deliver([1, 2, 3])])
    }

    @Test("any chunking of a conversation gives the same actions")
    func chunking() {
        var conversation: [UInt8] = []
        for index in 0..<20 {
            conversation += Self.client(.binary, [UInt8](repeating: UInt8(index), count: index * 37), fin: index % 3 != 0)
            if index % 3 == 0 { conversation += Self.client(.continuation, [UInt8(index)]) }
            if index % 5 == 0 { conversation += Self.client(.ping, [UInt8(index)]) }
        }
        var whole = connection(limit: 4096)
        let expected = whole.receive(conversation)
        #expect(expected.count == 24)
        var generator = SplitMix64(seed: 42)
        for _ in 0..<50 {
            var chunked = connection(limit: 4096)
            var actions: [WebSocketConnection.Action] = []
            var offset = 0
            while offset < conversation.count {
                let end = min(conversation.count, offset + Int.random(in: 1...200, using: &generator))
                actions += chunked.receive(conversation[offset..<end])
                offset = end
            }
            #expect(actions == expected)
        }
    }

    @Test("a peer's close is echoed with its code, then the server closes the transport")
    func peerClose() {
        var connection = connection()
        let actions = connection.receive(Self.client(.close, [0x03, 0xE9] + Array("tab closed".utf8)))
        #expect(actions == [.peerClosed(.goingAway, reason: "tab closed"), .write([0x88, 0x02, 0x03, 0xE9]), .closeTransport(.goingAway)])
        #expect(connection.state == .closed)
        #expect(connection.send([1]) == .dropped)
        #expect(connection.receive(Self.client(.binary, [1])) == [])
    }

    @Test("an empty close is answered with an empty close")
    func emptyClose() {
        var connection = connection()
        #expect(connection.receive(Self.client(.close)) == [.peerClosed(.noStatusReceived, reason: ""), .write([0x88, 0x00]), .closeTransport(.normalClosure)])
    }

    @Test("a close this side starts: data is dropped meanwhile, the peer's close ends it without an echo")
    func serverClose() {
        var connection = connection()
        #expect(connection.close(.goingAway, reason: "drain") == Self.closeFrame(1001, "drain"))
        #expect(connection.state == .closing)
        #expect(connection.close(.normalClosure) == nil)
        #expect(connection.send([1]) == .dropped)
        #expect(connection.ping() == nil)
        #expect(connection.receive(Self.client(.binary, [1]) + Self.client(.ping)) == [])
        #expect(connection.receive(Self.client(.close, [0x03, 0xE9])) == [.peerClosed(.goingAway, reason: ""), .closeTransport(.goingAway)])
        #expect(connection.transportClosed() == .normalClosure)
    }

    @Test("a peer that never answers a close is cut off when the timer fires")
    func closeTimeout() {
        var connection = connection()
        _ = connection.close(.normalClosure)
        #expect(connection.closeTimedOut() == .closeTransport(.abnormalClosure))
        #expect(connection.closeTimedOut() == nil)
    }

    @Test("a transport that ends without a close handshake is abnormal (1006)")
    func transportLost() {
        var connection = connection()
        _ = connection.receive(Self.client(.binary, [1], fin: false))
        #expect(connection.transportClosed() == .abnormalClosure)
        #expect(connection.state == .closed)
    }

    @Test("pings are answered with the same bytes; pongs are reported; the server can ping")
    func pings() {
        var connection = connection()
        #expect(connection.receive(Self.client(.ping, Array("Hello".utf8))) == [.write([0x8A, 0x05] + Array("Hello".utf8))])
        #expect(connection.receive(Self.client(.pong, [1, 2])) == [.pongReceived([1, 2])])
        #expect(connection.ping([7]) == [0x89, 0x01, 7])
    }

    static let badInputs: [([UInt8], UInt16)] = [
        (client(.text, Array("hi".utf8)), 1003),
        (server(.binary, [1]), 1002),
        ([0xC2, 0x81] + key + [1], 1002),
        (client(.ping, [], fin: false), 1002),
        (client(.ping, [UInt8](repeating: 0, count: 126)), 1002),
        (client(.continuation, [1]), 1002),
        (client(.binary, [1], fin: false) + client(.binary, [2]), 1002),
        (client(.binary, [1], fin: false) + client(.text, [2]), 1003),
        (client(.close, [0x03]), 1002),
        (client(.close, [0x03, 0xEE]), 1002),  // 1006 never goes on the wire
        (client(.close, [0x03, 0xED]), 1002),  // 1005
        (client(.close, [0x03, 0xEC]), 1002),  // 1004
        (client(.close, [0x03, 0xF7]), 1002),  // 1015
        (client(.close, [0x0B, 0xB7]), 1002),  // 2999
        (client(.close, [0x13, 0x88]), 1002),  // 5000
        (client(.close, [0x03, 0xE8, 0xC3, 0x28]), 1007),  // reason not UTF-8
        (client(.binary, [UInt8](repeating: 0, count: 1025)), 1009),
        (client(.binary, [UInt8](repeating: 0, count: 600), fin: false) + client(.continuation, [UInt8](repeating: 0, count: 425)), 1009),
    ]

    @Test("each bad input fails the connection with its precise close code", arguments: Self.badInputs)
    func violations(bytes: [UInt8], code: UInt16) {
        #expect(failure(bytes) == code)
    }

    @Test("valid close codes pass, including the application range")
    func validCloseCodes() {
        for code: UInt16 in [1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 1012, 1013, 1014, 3000, 3999, 4000, 4999] {
            var connection = connection()
            let actions = connection.receive(Self.client(.close, [UInt8(code >> 8), UInt8(code & 0xFF)]))
            #expect(actions.last == .closeTransport(WebSocketCloseCode(rawValue: code)), "\(code)")
        }
    }

    @Test("a message exactly at the limit passes, reassembled or not; the limit is decided before the payload arrives")
    func limits() {
        var connection = connection(limit: 1024)
        #expect(connection.receive(Self.client(.binary, [UInt8](repeating: 1, count: 1024))) == [.deliver([UInt8](repeating: 1, count: 1024))])
        let halves = Self.client(.binary, [UInt8](repeating: 2, count: 512), fin: false) + Self.client(.continuation, [UInt8](repeating: 2, count: 512))
        #expect(connection.receive(halves) == [.deliver([UInt8](repeating: 2, count: 1024))])
        // Only the header of a 1 GiB frame: refused at once.
        var fresh = self.connection(limit: 1024)
        let actions = fresh.receive([0x82, 0xFF, 0, 0, 0, 0, 0x40, 0, 0, 0])
        #expect(actions.last == .closeTransport(.messageTooBig))
    }

    @Test("bytes after a failure are ignored")
    func afterFailure() {
        var connection = connection()
        _ = connection.receive(Self.client(.text, [1]))
        #expect(connection.receive(Self.client(.binary, [1])) == [])
        #expect(connection.close(.normalClosure) == nil)
    }
}
