import GatewayWire
import Testing

@Suite("Frame decoder")
struct FrameDecoderTests {
    static let sampleFrames: [Frame] = {
        var settings = ConnectionSettings().message
        settings.maxConcurrentStreams = 7
        var start = ReaderGatewayV1.CallStart()
        start.method = ReaderGatewayV1.Sdk.connectReader.path
        start.timeoutMs = 1500
        var entry = ReaderGatewayV1.MetadataEntry()
        entry.key = "authorization"
        entry.value = Array("Bearer x".utf8)
        start.metadata = [entry]
        var goAway = ReaderGatewayV1.GoAway()
        goAway.lastStreamID = 9
        goAway.status = ReaderGatewayV1.Status(.goingAway, "bye")
        return [
            .settings(settings),
            .callStart(streamID: 1, start),
            .message(streamID: 1, [1, 2, 3]),
            .message(streamID: 3, []),
            .halfClose(streamID: 1),
            .endOfCall(streamID: 1, ReaderGatewayV1.CallEnd(ReaderGatewayV1.Status(.readerBusy, "busy"))),
            .cancel(streamID: 5, ReaderGatewayV1.Status(.deadlineExceeded, "late")),
            .ping(ack: false, payload: 0xDEAD_BEEF),
            .ping(ack: true, payload: 1),
            .goAway(goAway),
            .windowUpdate(streamID: 0, increment: 65_535),
            .windowUpdate(streamID: 3, increment: 1),
        ]
    }()

    func decodeAll(_ bytes: [UInt8], decoder: inout FrameDecoder) throws -> [Frame] {
        decoder.append(bytes)
        var frames: [Frame] = []
        while let frame = try decoder.nextFrame() { frames.append(frame) }
        return frames
    }

    func error(_ bytes: [UInt8], maxFrameSize: Int = 1024) -> WireError? {
        var decoder = FrameDecoder(maxFrameSize: maxFrameSize, maxHeaderSize: 256)
        do {
            _ = try decodeAll(bytes, decoder: &decoder)
            return nil
        } catch let error as WireError {
            return error
        } catch {
            return nil
        }
    }

    func header(length: UInt32, type: UInt8, flags: UInt8 = 0, stream: UInt32) -> [UInt8] {
        var bytes: [UInt8] = []
        FrameEncoder.appendHeader(length: Int(length), type: FrameType(rawValue: type), flags: FrameFlags(rawValue: flags), streamID: stream, to: &bytes)
        return bytes
    }

    @Test("the header is 10 bytes: length, type, flags, stream id, big-endian")
    func headerLayout() {
        #expect(FrameEncoder.encode(.message(streamID: 0x0102_0304, [0xAA])) == [0, 0, 0, 1, 2, 0, 1, 2, 3, 4, 0xAA])
        #expect(FrameEncoder.encode(.ping(ack: true, payload: 1)) == [0, 0, 0, 8, 6, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1])
    }

    @Test("every frame type round-trips, whole and byte by byte")
    func roundTrip() throws {
        var bytes: [UInt8] = []
        for frame in Self.sampleFrames { FrameEncoder.append(frame, to: &bytes) }
        var whole = FrameDecoder()
        #expect(try decodeAll(bytes, decoder: &whole) == Self.sampleFrames)

        var incremental = FrameDecoder()
        var frames: [Frame] = []
        for byte in bytes {
            incremental.append([byte])
            while let frame = try incremental.nextFrame() { frames.append(frame) }
        }
        #expect(frames == Self.sampleFrames)
        #expect(incremental.bufferedByteCount == 0)
    }

    @Test("need more bytes returns nil and keeps what arrived")
    func needMoreBytes() throws {
        let bytes = FrameEncoder.encode(.message(streamID: 1, [1, 2, 3, 4]))
        var decoder = FrameDecoder()
        decoder.append(Array(bytes.prefix(12)))
        #expect(try decoder.nextFrame() == nil)
        #expect(decoder.bufferedByteCount == 12)
        decoder.append(Array(bytes.dropFirst(12)))
        #expect(try decoder.nextFrame() == .message(streamID: 1, [1, 2, 3, 4]))
    }

    @Test("an oversized length is refused from the header alone, before any payload")
    func frameTooLarge() {
        let error = error(header(length: 1025, type: 2, stream: 1))
        #expect(error?.code == .frameTooLarge)
        #expect(error?.reason == .frameTooLarge)
        #expect(error?.statusCode == .resourceExhausted)
        #expect(self.error(header(length: 0xFFFF_FFFF, type: 2, stream: 1))?.code == .frameTooLarge)
    }

    @Test("a CALL_START above the header limit")
    func headerTooLarge() {
        #expect(error(header(length: 257, type: 1, stream: 1))?.code == .headerTooLarge)
    }

    @Test("unknown frame types", arguments: [UInt8(9), 0x42, 0xFF])
    func unknownType(type: UInt8) {
        let error = error(header(length: 0, type: type, stream: 1))
        #expect(error?.code == .unknownFrameType)
        #expect(error?.reason == .unknownFrameType)
    }

    @Test("flags, stream 0 rules, reserved bit and fixed payload sizes")
    func headerRules() {
        #expect(error(header(length: 0, type: 3, flags: 1, stream: 1))?.code == .invalidFrame)
        #expect(error(header(length: 0, type: 2, stream: 0))?.code == .streamIDInvalid)
        #expect(error(header(length: 8, type: 6, stream: 1) + [UInt8](repeating: 0, count: 8))?.code == .invalidFrame)
        #expect(error(header(length: 0, type: 2, stream: 0x8000_0001))?.code == .streamIDInvalid)
        #expect(error(header(length: 4, type: 6, stream: 0) + [0, 0, 0, 0])?.code == .invalidFrame)
        #expect(error(header(length: 4, type: 8, stream: 0) + [0, 0, 0, 0])?.code == .invalidFrame)
        #expect(error(header(length: 1, type: 3, stream: 1) + [0])?.code == .invalidFrame)
    }

    @Test("a malformed control payload names the message and the offset")
    func malformedPayload() {
        let payload: [UInt8] = [0x0A, 0x05, 0x61]  // CallStart.method: length 5, 1 byte present
        let error = error(header(length: 3, type: 1, stream: 1) + payload)
        #expect(error?.code == .truncated)
        #expect(error?.message.contains("readergateway.v1.CallStart") == true)
        #expect(error?.offset == 11)  // header (10) + the key byte
    }

    @Test("a server decoder insists on the client preface")
    func preface() throws {
        var decoder = FrameDecoder(expectsClientPreface: true)
        decoder.append(Array("RGW1\r\n".utf8))
        #expect(try decoder.nextFrame() == nil)
        decoder.append(Array("\r\n".utf8) + FrameEncoder.encode(.halfClose(streamID: 1)))
        #expect(try decoder.nextFrame() == .halfClose(streamID: 1))

        var wrong = FrameDecoder(expectsClientPreface: true)
        wrong.append(Array("GET / HTTP/1.1\r\n".utf8))
        #expect(throws: WireError.self) { try wrong.nextFrame() }
    }

    @Test("after an error the decoder stays failed")
    func stickyFailure() {
        var decoder = FrameDecoder(maxFrameSize: 16)
        decoder.append(header(length: 17, type: 2, stream: 1))
        #expect(throws: WireError.self) { try decoder.nextFrame() }
        decoder.append(FrameEncoder.encode(.halfClose(streamID: 1)))
        #expect(throws: WireError.self) { try decoder.nextFrame() }
    }

    @Test("memory stays bounded over a long stream of frames")
    func boundedBuffer() throws {
        var decoder = FrameDecoder()
        let frame = FrameEncoder.encode(.message(streamID: 1, [UInt8](repeating: 7, count: 1000)))
        var count = 0
        for _ in 0..<5000 {
            decoder.append(frame)
            while try decoder.nextFrame() != nil { count += 1 }
            #expect(decoder.bufferedByteCount == 0)
        }
        #expect(count == 5000)
    }
}
