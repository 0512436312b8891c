import GatewayWebSocket
import Testing
import WebSocketLoadClient

/// The read path that unmasks each message straight from the transport's read into one buffer
/// (`receive(_:appendingMessagesTo:accept:)`, `receive(_:appendingProtocolFramesTo:)`) gives
/// what the plain path gives: the same messages, in order, and the same other actions.
@Suite("WebSocket read path")
struct WebSocketReadPathTests {
    static let keys: [[UInt8]] = [[0x37, 0xFA, 0x21, 0x3D], [0x00, 0x00, 0x00, 0x00], [0xFF, 0x01, 0x80, 0x7F]]

    static func masked(_ opcode: WebSocketOpcode, _ payload: [UInt8], fin: Bool = true, key: [UInt8] = keys[0]) -> [UInt8] {
        WebSocketFrameEncoder.encode(WebSocketFrame(fin: fin, opcode: opcode, payload: payload), maskingKey: key)
    }

    /// Messages appended by the read path from `stream` handed over in pieces of `cut` bytes,
    /// each piece starting `alignment` bytes into its buffer; and the actions.
    static func readPath(_ stream: [UInt8], cut: Int, alignment: Int = 0) -> (messages: [[UInt8]], actions: [WebSocketConnection.Action]) {
        var connection = WebSocketConnection(configuration: .init(maxMessageSize: 1 << 16))
        var messages: [[UInt8]] = []
        var actions: [WebSocketConnection.Action] = []
        var offset = 0
        while offset < stream.count {
            let piece = [UInt8](repeating: 0xEE, count: alignment) + stream[offset..<min(offset + cut, stream.count)]
            var appended: [UInt8] = [0x55]  // what the buffer held before stays
            var bounds: [Range<Int>] = []
            actions += piece.withUnsafeBytes { raw in
                connection.receive(UnsafeRawBufferPointer(rebasing: raw[alignment...]), appendingMessagesTo: &appended) { message in
                    let start = bounds.last?.upperBound ?? 1
                    bounds.append(start..<start + message.count)
                    return true
                }
            }
            #expect(appended.first == 0x55 && appended.count == (bounds.last?.upperBound ?? 1))
            messages += bounds.map { Array(appended[$0]) }
            offset += cut
        }
        return (messages, actions)
    }

    /// What the plain path gives for the same stream in one piece.
    static func plainPath(_ stream: [UInt8]) -> (messages: [[UInt8]], actions: [WebSocketConnection.Action]) {
        var connection = WebSocketConnection(configuration: .init(maxMessageSize: 1 << 16))
        var messages: [[UInt8]] = []
        var actions: [WebSocketConnection.Action] = []
        for action in connection.receive(stream) {
            if case .deliver(let message) = action { messages.append(message) } else { actions.append(action) }
        }
        return (messages, actions)
    }

    @Test("every payload length from 0 to 130, at every alignment of the read and with every key, unmasks to what was sent")
    func unmaskEveryLengthAndAlignment() {
        for key in Self.keys {
            for count in 0...130 {
                let sent = WebSocketFramePathTests.payload(count)
                // Two frames back to back: the second's payload starts at every offset after the first's.
                let stream = Self.masked(.binary, sent, key: key) + Self.masked(.binary, Array(sent.reversed()), key: key)
                for alignment in 0..<8 {
                    let (messages, actions) = Self.readPath(stream, cut: stream.count, alignment: alignment)
                    #expect(messages == [sent, Array(sent.reversed())], "\(count) bytes at alignment \(alignment), key \(key)")
                    #expect(actions.isEmpty)
                }
            }
        }
    }

    @Test("fragmented messages, control frames between fragments, and a close: the plain path's messages and actions, whatever the cut")
    func fragmentsAndControlFrames() {
        let message = WebSocketFramePathTests.payload(300)
        let stream = Self.masked(.binary, Array(message[0..<10]))
            + Self.masked(.binary, Array(message[10..<100]), fin: false)
            + Self.masked(.ping, [1, 2, 3])
            + Self.masked(.continuation, Array(message[100..<101]), fin: false)
            + Self.masked(.pong, [])
            + Self.masked(.continuation, Array(message[101..<300]))
            + Self.masked(.binary, [])
            + Self.masked(.close, [0x03, 0xE8, 0x62, 0x79, 0x65])
            + Self.masked(.binary, [9, 9])  // after the close: never read
        let expected = Self.plainPath(stream)
        #expect(expected.messages == [Array(message[0..<10]), Array(message[10..<300]), []])
        #expect(expected.actions.count == 5, "pong, pong received, peer closed, close echo, close transport: \(expected.actions)")
        for cut in [1, 2, 3, 6, 7, 64, 100, stream.count] {
            for alignment in [0, 3] {
                let (messages, actions) = Self.readPath(stream, cut: cut, alignment: alignment)
                #expect(messages == expected.messages, "pieces of \(cut) bytes at alignment \(alignment)")
                #expect(actions == expected.actions, "pieces of \(cut) bytes at alignment \(alignment)")
            }
        }
    }

    @Test("a broken rule fails the connection as on the plain path, with the messages before it kept")
    func protocolErrors() {
        let good = Self.masked(.binary, [1, 2, 3])
        let broken: [[UInt8]] = [
            [0x82, 0x03, 1, 2, 3],  // not masked
            Self.masked(.text, [0x61]),  // text
            Self.masked(.continuation, [1]),  // nothing to continue
            Self.masked(.binary, [1], fin: false) + Self.masked(.binary, [2]),  // a new message inside a fragmented one
            Self.masked(.binary, [UInt8](repeating: 7, count: (1 << 16) + 1)),  // over the limit
        ]
        for tail in broken {
            let stream = good + tail + good
            let expected = Self.plainPath(stream)
            for cut in [1, 5, stream.count] {
                let (messages, actions) = Self.readPath(stream, cut: cut)
                #expect(messages == expected.messages, "pieces of \(cut) bytes")
                #expect(actions == expected.actions, "pieces of \(cut) bytes")
                #expect(messages.first == [1, 2, 3])
                guard case .closeTransport? = actions.last else {
                    Issue.record("no close after \(tail.prefix(2)): \(actions)")
                    continue
                }
            }
        }
    }

    @Test("a message the layer above refuses is taken out again and nothing after it is read")
    func refusedMessage() {
        let stream = Self.masked(.binary, [1]) + Self.masked(.binary, [2, 2]) + Self.masked(.binary, [3])
        var connection = WebSocketConnection(configuration: .init(maxMessageSize: 1 << 16))
        var appended: [UInt8] = []
        var seen: [[UInt8]] = []
        let actions = stream.withUnsafeBytes { raw in
            connection.receive(raw, appendingMessagesTo: &appended) { message in
                seen.append(Array(message))
                return message.count < 2
            }
        }
        #expect(seen == [[1], [2, 2]])
        #expect(appended == [1])
        #expect(actions.isEmpty)
    }

    @Test("the session's protocol frames appended back to back are the frames it hands over one by one, whatever the cut")
    func sessionFramesBackToBack() {
        let frame = WebSocketFramePathTests.protocolFrame
        let client = { (opcode: WebSocketOpcode, payload: [UInt8], fin: Bool) in Self.masked(opcode, payload, fin: fin) }
        let streams: [[UInt8]] = [
            client(.binary, frame(0, 1), true) + client(.ping, [7], true) + client(.binary, frame(300, 3), true)
                + client(.binary, Array(frame(20, 5).prefix(8)), false) + client(.ping, [], true)
                + client(.continuation, Array(frame(20, 5).dropFirst(8)), true) + client(.close, [0x03, 0xE8], true),
            // a message that is not one protocol frame fails the WebSocket; the frames before it stay
            client(.binary, frame(4, 1), true) + client(.binary, frame(4, 1) + frame(1, 1), true) + client(.binary, frame(2, 1), true),
        ]
        for stream in streams {
            for cut in [1, 3, 10, 64, stream.count] {
                var oneByOne = Self.openSession()
                var backToBack = Self.openSession()
                var expectedFrames: [UInt8] = []
                var expectedActions: [WebSocketServerSession.Action] = []
                var frames: [UInt8] = []
                var actions: [WebSocketServerSession.Action] = []
                var offset = 0
                while offset < stream.count {
                    let piece = Array(stream[offset..<min(offset + cut, stream.count)])
                    expectedActions += piece.withUnsafeBytes { oneByOne.receive($0) { expectedFrames += Array($0) } }
                    actions += piece.withUnsafeBytes { backToBack.receive($0, appendingProtocolFramesTo: &frames) }
                    offset += cut
                }
                #expect(frames == expectedFrames, "pieces of \(cut) bytes")
                #expect(actions == expectedActions, "pieces of \(cut) bytes")
                #expect(backToBack.state == oneByOne.state)
                #expect(!frames.isEmpty && !actions.isEmpty)
            }
        }
    }

    static func openSession() -> WebSocketServerSession {
        var session = WebSocketServerSession(handshake: .init(), connection: .init(maxMessageSize: 1 << 16))
        _ = session.receive(WebSocketClientCodec.upgradeRequest(host: "localhost"))
        return session
    }
}
