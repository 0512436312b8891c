import GatewayTestKit
import GatewayWebSocket
import Testing

@Suite("WebSocket frame decoder")
struct WebSocketFrameDecoderTests {
    func decode(_ bytes: [UInt8], role: WebSocketFrameDecoder.Role, acceptsText: Bool = true, limit: Int = 1 << 20) throws -> [WebSocketFrame] {
        var decoder = WebSocketFrameDecoder(role: role, acceptsText: acceptsText)
        decoder.append(bytes)
        var frames: [WebSocketFrame] = []
        while let frame = try decoder.nextFrame(maxDataPayload: limit) { frames.append(frame) }
        #expect(decoder.bufferedByteCount == 0)
        return frames
    }

    func error(_ bytes: [UInt8], role: WebSocketFrameDecoder.Role = .server, acceptsText: Bool = false, limit: Int = 1 << 20) -> WebSocketProtocolError? {
        var decoder = WebSocketFrameDecoder(role: role, acceptsText: acceptsText)
        decoder.append(bytes)
        do {
            while try decoder.nextFrame(maxDataPayload: limit) != nil {}
            return nil
        } catch {
            return error
        }
    }

    let hello = Array("Hello".utf8)

    @Test("RFC 6455 §5.7: a single-frame unmasked text message")
    func unmaskedText() throws {
        #expect(try decode([0x81, 0x05, 0x48, 0x65, 0x6C, 0x6C, 0x6F], role: .client) == [WebSocketFrame(opcode: .text, payload: hello)])
    }

    @Test("RFC 6455 §5.7: a single-frame masked text message")
    func maskedText() throws {
        let bytes: [UInt8] = [0x81, 0x85, 0x37, 0xFA, 0x21, 0x3D, 0x7F, 0x9F, 0x4D, 0x51, 0x58]
        #expect(try decode(bytes, role: .server) == [WebSocketFrame(opcode: .text, payload: hello)])
        #expect(WebSocketFrameEncoder.encode(WebSocketFrame(opcode: .text, payload: hello), maskingKey: [0x37, 0xFA, 0x21, 0x3D]) == bytes)
    }

    @Test("RFC 6455 §5.7: a fragmented unmasked text message")
    func fragmentedText() throws {
        let frames = try decode([0x01, 0x03, 0x48, 0x65, 0x6C, 0x80, 0x02, 0x6C, 0x6F], role: .client)
        #expect(frames == [WebSocketFrame(fin: false, opcode: .text, payload: Array("Hel".utf8)), WebSocketFrame(opcode: .continuation, payload: Array("lo".utf8))])
    }

    @Test("RFC 6455 §5.7: unmasked ping, masked pong")
    func pingPong() throws {
        #expect(try decode([0x89, 0x05, 0x48, 0x65, 0x6C, 0x6C, 0x6F], role: .client) == [WebSocketFrame(opcode: .ping, payload: hello)])
        let pong: [UInt8] = [0x8A, 0x85, 0x37, 0xFA, 0x21, 0x3D, 0x7F, 0x9F, 0x4D, 0x51, 0x58]
        #expect(try decode(pong, role: .server) == [WebSocketFrame(opcode: .pong, payload: hello)])
    }

    @Test("RFC 6455 §5.7: 256 bytes and 64 KiB binary messages in one unmasked frame")
    func lengths() throws {
        let small = [UInt8](repeating: 7, count: 256)
        let smallFrame = WebSocketFrameEncoder.encode(WebSocketFrame(opcode: .binary, payload: small))
        #expect(Array(smallFrame.prefix(4)) == [0x82, 0x7E, 0x01, 0x00])
        #expect(try decode(smallFrame, role: .client) == [WebSocketFrame(opcode: .binary, payload: small)])
        let large = [UInt8](repeating: 9, count: 65536)
        let largeFrame = WebSocketFrameEncoder.encode(WebSocketFrame(opcode: .binary, payload: large))
        #expect(Array(largeFrame.prefix(10)) == [0x82, 0x7F, 0, 0, 0, 0, 0, 1, 0, 0])
        #expect(try decode(largeFrame, role: .client) == [WebSocketFrame(opcode: .binary, payload: large)])
    }

    @Test("every split point: nil until the frame is whole, nothing consumed meanwhile")
    func splits() throws {
        let payload = [UInt8](repeating: 3, count: 300)
        let bytes = WebSocketFrameEncoder.encode(WebSocketFrame(opcode: .binary, payload: payload), maskingKey: [1, 2, 3, 4])
        for split in 0..<bytes.count {
            var decoder = WebSocketFrameDecoder(role: .server)
            decoder.append(bytes[..<split])
            #expect(try decoder.nextFrame(maxDataPayload: 1000) == nil)
            #expect(decoder.bufferedByteCount == split)
            decoder.append(bytes[split...])
            #expect(try decoder.nextFrame(maxDataPayload: 1000) == WebSocketFrame(opcode: .binary, payload: payload))
        }
    }

    static let headerViolations: [([UInt8], UInt16)] = [
        ([0xC2, 0x80, 0, 0, 0, 0], 1002),  // RSV1
        ([0xA2, 0x80, 0, 0, 0, 0], 1002),  // RSV2
        ([0x92, 0x80, 0, 0, 0, 0], 1002),  // RSV3
        ([0x83, 0x80, 0, 0, 0, 0], 1002),  // reserved data opcode
        ([0x8B, 0x80, 0, 0, 0, 0], 1002),  // reserved control opcode
        ([0x09, 0x80, 0, 0, 0, 0], 1002),  // fragmented ping
        ([0x08, 0x80, 0, 0, 0, 0], 1002),  // fragmented close
        ([0x82, 0x00], 1002),  // unmasked client frame
        ([0x89, 0xFE, 0x00, 0x7E], 1002),  // ping of 126 bytes
        ([0x82, 0xFE, 0x00, 0x05], 1002),  // 16-bit length below 126
        ([0x82, 0xFF, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF], 1002),  // 64-bit length below 65536
        ([0x82, 0xFF, 0x80, 0, 0, 0, 0, 0, 0, 0], 1002),  // 64-bit length with its top bit
        ([0x81, 0x80, 0, 0, 0, 0], 1003),  // text
        ([0x01, 0x80, 0, 0, 0, 0], 1003),  // text, first fragment
        ([0x82, 0xFF, 0, 0, 0, 0, 0, 0x10, 0, 0], 1009),  // 1 MiB over the limit, refused before the payload
    ]

    @Test("each broken rule gets its close code, decided from the header alone", arguments: Self.headerViolations)
    func violations(bytes: [UInt8], code: UInt16) {
        #expect(error(bytes, limit: 65536)?.closeCode.rawValue == code)
    }

    @Test("a client-role decoder refuses masked frames")
    func clientRefusesMasked() {
        #expect(error([0x82, 0x80, 1, 2, 3, 4], role: .client)?.closeCode == .protocolError)
    }

    @Test("the data limit is inclusive and does not apply to control frames")
    func limit() throws {
        let exactly = WebSocketFrameEncoder.encode(WebSocketFrame(opcode: .binary, payload: [UInt8](repeating: 1, count: 100)), maskingKey: [9, 9, 9, 9])
        #expect(try decode(exactly, role: .server, limit: 100).count == 1)
        #expect(error(exactly, limit: 99)?.closeCode == .messageTooBig)
        let ping = WebSocketFrameEncoder.encode(WebSocketFrame(opcode: .ping, payload: [UInt8](repeating: 1, count: 125)), maskingKey: [9, 9, 9, 9])
        #expect(try decode(ping, role: .server, limit: 0).count == 1)
    }

    @Test("the encoder round-trips through the decoder at every length encoding boundary")
    func roundTrip() throws {
        var generator = SplitMix64(seed: 6455)
        for count in [0, 1, 125, 126, 127, 65535, 65536, 70000] {
            let payload = (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let key = (0..<4).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let frame = WebSocketFrame(fin: count % 2 == 0, opcode: .binary, payload: payload)
            #expect(try decode(WebSocketFrameEncoder.encode(frame, maskingKey: key), role: .server) == [frame])
            #expect(try decode(WebSocketFrameEncoder.encode(frame), role: .client) == [frame])
        }
    }

    @Test("close payloads: the code, then a reason cut to 123 bytes on a character boundary")
    func closePayload() {
        #expect(WebSocketFrameEncoder.closePayload(.normalClosure, reason: "bye") == [0x03, 0xE8, 0x62, 0x79, 0x65])
        let long = WebSocketFrameEncoder.closePayload(.protocolError, reason: String(repeating: "é", count: 100))
        #expect(long.count == 124)
        #expect(String(validating: long[2...], as: UTF8.self) != nil)
    }
}
