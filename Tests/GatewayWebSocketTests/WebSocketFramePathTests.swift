import GatewayWebSocket
import Testing
import WebSocketLoadClient

/// The allocation-lean entry points of the frame path (reading straight from the transport's
/// buffer, unmasking eight bytes at a time, framing straight from the frame connection's
/// output) give exactly what the plain ones give.
@Suite("WebSocket frame path")
struct WebSocketFramePathTests {
    /// Bytes that differ from position to position, so a key byte applied at the wrong offset shows.
    static func payload(_ count: Int) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
    }

    /// A protocol frame (10-byte header, then `count` payload bytes) on stream `stream`.
    static func protocolFrame(_ count: Int, stream: UInt8 = 1) -> [UInt8] {
        [UInt8(truncatingIfNeeded: count >> 24), UInt8(truncatingIfNeeded: count >> 16), UInt8(truncatingIfNeeded: count >> 8), UInt8(truncatingIfNeeded: count), 0, 0, 0, 0, 0, stream]
            + payload(count)
    }

    @Test("masked payloads of every length around the eight-byte steps, and past the 16- and 64-bit length forms, unmask to what was sent")
    func unmaskEveryLength() throws {
        let key: [UInt8] = [0xA5, 0x17, 0xFE, 0x42]
        for count in Array(0...41) + [125, 126, 127, 65_535, 65_536, 70_001] {
            let sent = Self.payload(count)
            var decoder = WebSocketFrameDecoder(role: .server)
            WebSocketFrameEncoder.encode(WebSocketFrame(opcode: .binary, payload: sent), maskingKey: key).withUnsafeBytes { decoder.append($0) }
            let frame = try decoder.nextFrame(maxDataPayload: 1 << 20)
            #expect(frame?.payload == sent, "payload of \(count) bytes")
            #expect(decoder.bufferedByteCount == 0)
        }
    }

    @Test("reading from a raw buffer in pieces gives the actions of reading arrays")
    func receiveFromRawBuffer() {
        let stream = WebSocketConnectionTests.client(.binary, Self.payload(200)) + WebSocketConnectionTests.client(.ping, [1, 2])
            + WebSocketConnectionTests.client(.binary, Self.payload(9), fin: false) + WebSocketConnectionTests.client(.continuation, Self.payload(3))
        for cut in [1, 2, 7, 64, 200, stream.count] {
            var plain = WebSocketConnection(configuration: .init(maxMessageSize: 4096))
            var lean = WebSocketConnection(configuration: .init(maxMessageSize: 4096))
            var plainActions: [WebSocketConnection.Action] = []
            var leanActions: [WebSocketConnection.Action] = []
            var offset = 0
            while offset < stream.count {
                let piece = Array(stream[offset..<min(offset + cut, stream.count)])
                plainActions += plain.receive(piece)
                leanActions += piece.withUnsafeBytes { lean.receive($0) }
                offset += cut
            }
            #expect(leanActions == plainActions, "pieces of \(cut) bytes")
            #expect(leanActions.count == 3)
        }
    }

    @Test("framing from a raw buffer gives one binary message per protocol frame, as framing arrays does, whatever the cut")
    func sendFromRawBuffer() {
        let output = Self.protocolFrame(0) + Self.protocolFrame(54, stream: 3) + Self.protocolFrame(300, stream: 5)
        for cut in 1...output.count where cut < 24 || cut % 37 == 0 || cut == output.count {
            var plain = open()
            var lean = open()
            var plainActions: [WebSocketServerSession.Action] = []
            var leanActions: [WebSocketServerSession.Action] = []
            var offset = 0
            while offset < output.count {
                let piece = Array(output[offset..<min(offset + cut, output.count)])
                plainActions += plain.sendProtocolBytes(piece)
                leanActions += piece.withUnsafeBytes { lean.sendProtocolBytes($0) }
                offset += cut
            }
            #expect(leanActions == plainActions, "pieces of \(cut) bytes")
            #expect(leanActions == [
                .write([0x82, 10] + Self.protocolFrame(0)),
                .write([0x82, 64] + Self.protocolFrame(54, stream: 3)),
                .write([0x82, 126, 0x01, 0x36] + Self.protocolFrame(300, stream: 5)),
            ])
        }
    }

    @Test("frames handed over in place are the protocol frames the actions carry, and the other actions are the same, whatever the cut")
    func receiveInPlace() {
        let ping = WebSocketConnectionTests.client(.ping, [7, 7])
        let streams: [[UInt8]] = [
            // frames, a ping between them, a fragmented message (not in place), then a close
            WebSocketConnectionTests.client(.binary, Self.protocolFrame(0)) + ping + WebSocketConnectionTests.client(.binary, Self.protocolFrame(300, stream: 3))
                + WebSocketConnectionTests.client(.binary, Array(Self.protocolFrame(20, stream: 5).prefix(8)), fin: false)
                + WebSocketConnectionTests.client(.continuation, Array(Self.protocolFrame(20, stream: 5).dropFirst(8)))
                + WebSocketConnectionTests.client(.close, [0x03, 0xE8]),
            // a message that is not one protocol frame fails the WebSocket; nothing after it is read
            WebSocketConnectionTests.client(.binary, Self.protocolFrame(4)) + WebSocketConnectionTests.client(.binary, Self.protocolFrame(4) + Self.protocolFrame(1))
                + WebSocketConnectionTests.client(.binary, Self.protocolFrame(2)),
        ]
        for stream in streams {
            for cut in [1, 3, 10, 64, stream.count] {
                var plain = open()
                var lean = open()
                var expectedFrames: [[UInt8]] = []
                var expectedOthers: [WebSocketServerSession.Action] = []
                var frames: [[UInt8]] = []
                var others: [WebSocketServerSession.Action] = []
                var offset = 0
                while offset < stream.count {
                    let piece = Array(stream[offset..<min(offset + cut, stream.count)])
                    for action in plain.receive(piece) {
                        if case .protocolFrame(let frame) = action { expectedFrames.append(frame) } else { expectedOthers.append(action) }
                    }
                    others += piece.withUnsafeBytes { lean.receive($0) { frames.append(Array($0)) } }
                    offset += cut
                }
                #expect(frames == expectedFrames, "pieces of \(cut) bytes")
                #expect(others == expectedOthers, "pieces of \(cut) bytes")
                #expect(lean.state == plain.state)
                #expect(!frames.isEmpty && !others.isEmpty)
            }
        }
    }

    @Test("messages appended back to back are the messages of sendProtocolBytes, and none once the WebSocket is not open")
    func appendMessages() {
        let output = Self.protocolFrame(0) + Self.protocolFrame(54, stream: 3) + Self.protocolFrame(300, stream: 5)
        for cut in [1, 5, 10, 11, 64, output.count] {
            var plain = open()
            var lean = open()
            var expected: [UInt8] = []
            var appended: [UInt8] = []
            var offset = 0
            while offset < output.count {
                let piece = Array(output[offset..<min(offset + cut, output.count)])
                for case .write(let message) in plain.sendProtocolBytes(piece) { expected += message }
                #expect(piece.withUnsafeBytes { lean.appendProtocolMessages($0, to: &appended) })
                offset += cut
            }
            #expect(appended == expected, "pieces of \(cut) bytes")
        }
        var closing = open()
        _ = closing.close(.normalClosure)
        var nothing: [UInt8] = []
        #expect(!output.withUnsafeBytes { closing.appendProtocolMessages($0, to: &nothing) })
        #expect(nothing.isEmpty)
    }

    @Test("the load generators' client codec upgrades and trades masked messages with the server session")
    func clientCodecAgainstServerSession() throws {
        var server = WebSocketServerSession(handshake: .init(), connection: .init(maxMessageSize: 4096))
        var client = WebSocketClientCodec(seed: 12345)
        var upgrade = server.receive(WebSocketClientCodec.upgradeRequest(host: "localhost:8443"))
        guard case .write(let response) = upgrade.removeFirst() else {
            Issue.record("no response to the upgrade: \(upgrade)")
            return
        }
        var inbound: [WebSocketClientCodec.Inbound] = []
        try response.withUnsafeBytes { try client.receive($0, into: &inbound) }
        #expect(inbound == [.opened])

        var protocolBytes = Self.protocolFrame(5) + Self.protocolFrame(130, stream: 3) + Array(Self.protocolFrame(4).prefix(6))
        var wire: [UInt8] = []
        client.appendProtocolFrames(&protocolBytes, to: &wire)
        #expect(protocolBytes == Array(Self.protocolFrame(4).prefix(6)), "the partial frame waits")
        #expect(server.receive(wire) == [.protocolFrame(Self.protocolFrame(5)), .protocolFrame(Self.protocolFrame(130, stream: 3))])

        var answer: [UInt8] = []
        for case .write(let bytes) in server.sendProtocolBytes(Self.protocolFrame(200, stream: 7)) { answer += bytes }
        inbound.removeAll()
        try answer.withUnsafeBytes { try client.receive($0, into: &inbound) }
        #expect(inbound == [.message(Self.protocolFrame(200, stream: 7))])
    }

    @Test("the client codec refuses a response that is not the binding's 101")
    func clientCodecRefusal() {
        var client = WebSocketClientCodec()
        var inbound: [WebSocketClientCodec.Inbound] = []
        let refusal = Array("HTTP/1.1 403 Forbidden\r\nConnection: close\r\n\r\n".utf8)
        #expect(throws: WebSocketClientError.self) { try refusal.withUnsafeBytes { try client.receive($0, into: &inbound) } }
        #expect(inbound.isEmpty)
    }

    @Test("the client codec's messages appended back to back, read in pieces of any size, are the messages of the plain receive, in order")
    func clientCodecAppendingMessages() throws {
        var server = WebSocketServerSession(handshake: .init(), connection: .init(maxMessageSize: 1 << 20))
        guard case .write(let response)? = server.receive(WebSocketClientCodec.upgradeRequest(host: "localhost")).first else {
            Issue.record("no response to the upgrade")
            return
        }
        let messages = [Self.protocolFrame(5), Self.protocolFrame(130, stream: 3), Self.protocolFrame(70_001, stream: 5), Self.protocolFrame(0, stream: 7)]
        func binary(_ message: [UInt8]) -> [UInt8] { WebSocketFrameEncoder.encode(WebSocketFrame(opcode: .binary, payload: message)) }
        let stream = response + binary(messages[0]) + WebSocketFrameEncoder.encode(WebSocketFrame(opcode: .ping, payload: [9, 8]))
            + binary(messages[1]) + WebSocketFrameEncoder.encode(WebSocketFrame(opcode: .pong, payload: [1])) + binary(messages[2]) + binary(messages[3])
            + WebSocketFrameEncoder.encode(WebSocketFrame(opcode: .close, payload: [0x03, 0xE9]))
        for cut in [1, 2, 3, 11, 64, 137, 4096, stream.count] {
            var plain = WebSocketClientCodec()
            var lean = WebSocketClientCodec()
            var plainInbound: [WebSocketClientCodec.Inbound] = []
            var leanInbound: [WebSocketClientCodec.Inbound] = []
            var appended: [UInt8] = []
            var offset = 0
            while offset < stream.count {
                let piece = Array(stream[offset..<min(offset + cut, stream.count)])
                try piece.withUnsafeBytes { try plain.receive($0, into: &plainInbound) }
                try piece.withUnsafeBytes { try lean.receive($0, appendingMessagesTo: &appended, into: &leanInbound) }
                offset += cut
            }
            #expect(plainInbound == [.opened, .message(messages[0]), .ping([9, 8]), .message(messages[1]), .message(messages[2]), .message(messages[3]), .closed(.init(rawValue: 1001))], "pieces of \(cut) bytes")
            #expect(leanInbound == [.opened, .ping([9, 8]), .closed(.init(rawValue: 1001))], "pieces of \(cut) bytes")
            #expect(appended == messages.flatMap { $0 }, "pieces of \(cut) bytes")
        }
    }

    @Test("the client codec's appending receive refuses a masked server frame and a text message, as the plain one does")
    func clientCodecAppendingRefusals() throws {
        var server = WebSocketServerSession(handshake: .init(), connection: .init(maxMessageSize: 4096))
        guard case .write(let response)? = server.receive(WebSocketClientCodec.upgradeRequest(host: "localhost")).first else {
            Issue.record("no response to the upgrade")
            return
        }
        let masked = WebSocketFrameEncoder.encode(WebSocketFrame(opcode: .binary, payload: Self.protocolFrame(3)), maskingKey: [1, 2, 3, 4])
        let text = WebSocketFrameEncoder.encode(WebSocketFrame(opcode: .text, payload: Array("hi".utf8)))
        for bad in [masked, text] {
            for split in [false, true] {
                var codec = WebSocketClientCodec()
                var inbound: [WebSocketClientCodec.Inbound] = []
                var appended: [UInt8] = []
                try response.withUnsafeBytes { try codec.receive($0, appendingMessagesTo: &appended, into: &inbound) }
                // Split: the frame's first byte waits in the decoder, the rest goes through its buffer.
                let pieces = split ? [Array(bad.prefix(1)), Array(bad.dropFirst())] : [bad]
                #expect(throws: WebSocketClientError.self) {
                    for piece in pieces { try piece.withUnsafeBytes { try codec.receive($0, appendingMessagesTo: &appended, into: &inbound) } }
                }
                #expect(appended.isEmpty)
                #expect(inbound == [.opened])
            }
        }
    }

    func open() -> WebSocketServerSession {
        var session = WebSocketServerSession(handshake: .init(), connection: .init(maxMessageSize: 1 << 16))
        _ = session.receive(WebSocketClientCodec.upgradeRequest(host: "localhost"))
        return session
    }
}
