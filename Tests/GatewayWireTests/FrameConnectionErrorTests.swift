import GatewayWire
import Testing

/// A misbehaving peer, written frame by frame, against a real server
/// connection: every violation ends in a precise status, never a trap.
@Suite("FrameConnection against a misbehaving peer")
struct FrameConnectionErrorTests {
    typealias V1 = ReaderGatewayV1
    static let t0 = WireTime(nanoseconds: 1_000_000_000)

    struct Server {
        var connection: FrameConnection
        var events: [ConnectionEvent] = []

        init(_ configuration: ConnectionConfiguration = ConnectionConfiguration(role: .server), settings: Bool = true) {
            connection = FrameConnection(configuration: configuration, now: FrameConnectionErrorTests.t0)
            var hello = FrameHeader.clientPreface
            if settings { FrameEncoder.append(.settings(ConnectionSettings().message), to: &hello) }
            events = connection.receive(hello, now: FrameConnectionErrorTests.t0)
            _ = connection.takeOutbound()
        }

        mutating func send(_ frames: Frame..., at now: WireTime = FrameConnectionErrorTests.t0) {
            var bytes: [UInt8] = []
            for frame in frames { FrameEncoder.append(frame, to: &bytes) }
            events += connection.receive(bytes, now: now)
        }

        mutating func sendRaw(_ bytes: [UInt8]) {
            events += connection.receive(bytes, now: FrameConnectionErrorTests.t0)
        }

        /// The frames the server wrote.
        mutating func written() throws -> [Frame] {
            var decoder = FrameDecoder()
            decoder.append(connection.takeOutbound())
            var frames: [Frame] = []
            while let frame = try decoder.nextFrame() { frames.append(frame) }
            return frames
        }

        /// The GOAWAY the server wrote, if any.
        mutating func goAway() throws -> V1.GoAway? {
            for case .goAway(let goAway) in try written() { return goAway }
            return nil
        }
    }

    static func start(_ method: String = "/readergateway.v1.Sdk/Heartbeat", timeoutMs: UInt64 = 0) -> V1.CallStart {
        var start = V1.CallStart()
        start.method = method
        start.timeoutMs = timeoutMs
        return start
    }

    @Test("a stream id reused is a connection error: GOAWAY STREAM_ID_INVALID")
    func reusedStreamID() throws {
        var server = Server()
        server.send(.callStart(streamID: 1, Self.start()), .callStart(streamID: 1, Self.start()))
        let goAway = try #require(try server.goAway())
        #expect(goAway.status?.reason == .streamIDInvalid)
        #expect(goAway.status?.code == .internal)
        #expect(goAway.lastStreamID == 1)
        #expect(server.connection.state == .closed)
        #expect(server.events.contains(.callCancelled(streamID: 1, goAway.status!)))
    }

    @Test("stream ids out of order or even are refused", arguments: [UInt32(2), 3])
    func outOfOrder(second: UInt32) throws {
        var server = Server()
        server.send(.callStart(streamID: 5, Self.start()), .callStart(streamID: second, Self.start()))
        #expect(try server.goAway()?.status?.reason == .streamIDInvalid)
    }

    @Test("an oversized frame: GOAWAY FRAME_TOO_LARGE before its payload arrives")
    func oversized() throws {
        var server = Server(ConnectionConfiguration(role: .server, localSettings: ConnectionSettings(maxFrameSize: 16_384)))
        var header: [UInt8] = []
        FrameEncoder.appendHeader(length: 1 << 30, type: .message, streamID: 1, to: &header)
        server.sendRaw(header)
        let goAway = try #require(try server.goAway())
        #expect(goAway.status?.reason == .frameTooLarge)
        #expect(goAway.status?.code == .resourceExhausted)
    }

    @Test("an unknown frame type: GOAWAY UNKNOWN_FRAME_TYPE")
    func unknownFrameType() throws {
        var server = Server()
        var header: [UInt8] = []
        FrameEncoder.appendHeader(length: 0, type: FrameType(rawValue: 0x20), streamID: 1, to: &header)
        server.sendRaw(header)
        #expect(try server.goAway()?.status?.reason == .unknownFrameType)
    }

    @Test("a malformed CALL_START payload: GOAWAY MALFORMED_MESSAGE")
    func malformedCallStart() throws {
        var server = Server()
        var bytes: [UInt8] = []
        let payload: [UInt8] = [0x0A, 0x02, 0xC3, 0x28]  // method: invalid UTF-8
        FrameEncoder.append(type: .callStart, streamID: 1, payload: payload, to: &bytes)
        server.sendRaw(bytes)
        let goAway = try #require(try server.goAway())
        #expect(goAway.status?.reason == .malformedMessage)
        #expect(goAway.status?.message.contains("UTF-8") == true)
    }

    @Test("the first frame must be SETTINGS; SETTINGS only once")
    func settingsRules() throws {
        var noSettings = Server(settings: false)
        noSettings.send(.callStart(streamID: 1, Self.start()))
        #expect(try noSettings.goAway()?.status?.reason == .protocolError)

        var twice = Server()
        twice.send(.settings(ConnectionSettings().message))
        #expect(try twice.goAway()?.status?.reason == .protocolError)
    }

    @Test("frames on a stream that was never opened are a connection error")
    func idleStream() throws {
        var server = Server()
        server.send(.message(streamID: 7, [1]))
        #expect(try server.goAway()?.status?.reason == .streamStateInvalid)
    }

    @Test("MESSAGE after HALF_CLOSE ends only that call, with STREAM_STATE_INVALID")
    func messageAfterHalfClose() throws {
        var server = Server()
        server.send(.callStart(streamID: 1, Self.start()), .halfClose(streamID: 1), .message(streamID: 1, [1]))
        let frames = try server.written()
        guard case .endOfCall(1, let end)? = frames.last else {
            Issue.record("expected END_OF_CALL, got \(frames)")
            return
        }
        #expect(end.status?.reason == .streamStateInvalid)
        #expect(server.connection.state == .active)
    }

    @Test("overrunning the stream window: GOAWAY FLOW_CONTROL_VIOLATION")
    func flowControlViolation() throws {
        var server = Server(ConnectionConfiguration(role: .server, localSettings: ConnectionSettings(initialStreamWindow: 100)))
        let chunk = [UInt8](repeating: 0, count: 80)
        server.send(.callStart(streamID: 1, Self.start()), .message(streamID: 1, chunk), .message(streamID: 1, chunk))
        #expect(server.connection.state == .active)  // 100 -> 20 -> -60: the overshoot is allowed
        server.send(.message(streamID: 1, chunk))  // window is exhausted
        let goAway = try #require(try server.goAway())
        #expect(goAway.status?.reason == .flowControlViolation)
    }

    @Test("too many concurrent calls: the extra call ends UNAVAILABLE / TOO_MANY_STREAMS")
    func tooManyStreams() throws {
        var server = Server(ConnectionConfiguration(role: .server, localSettings: ConnectionSettings(maxConcurrentStreams: 1)))
        server.send(.callStart(streamID: 1, Self.start()), .callStart(streamID: 3, Self.start()))
        let frames = try server.written()
        guard case .endOfCall(3, let end)? = frames.last else {
            Issue.record("expected END_OF_CALL on 3, got \(frames)")
            return
        }
        #expect(end.status?.code == .unavailable)
        #expect(end.status?.reason == .tooManyStreams)
        #expect(server.connection.isOpen(1))
    }

    @Test("a client that pings too often is sent GOAWAY TOO_MANY_PINGS")
    func tooManyPings() throws {
        var server = Server(ConnectionConfiguration(role: .server, pingPolicy: .init(minimumInterval: .seconds(10), maxStrikes: 2)))
        var now = Self.t0
        for index in 0..<4 {
            server.send(.ping(ack: false, payload: UInt64(index)), at: now)
            now = now.adding(.seconds(1))
        }
        let frames = try server.written()
        #expect(frames.filter { if case .ping(true, _) = $0 { true } else { false } }.count == 3)
        guard case .goAway(let goAway)? = frames.last else {
            Issue.record("expected GOAWAY, got \(frames)")
            return
        }
        #expect(goAway.status?.reason == .tooManyPings)
    }

    @Test("a server stream after the transport is lost ends with CONNECTION_LOST")
    func connectionLost() {
        var server = Server()
        server.send(.callStart(streamID: 1, Self.start()))
        let events = server.connection.connectionLost()
        #expect(events.first == .callCancelled(streamID: 1, V1.Status(.connectionLost, "the connection was lost")))
        #expect(server.connection.state == .closed)
    }

    @Test("input after the connection closed is ignored")
    func afterClose() throws {
        var server = Server()
        server.send(.message(streamID: 9, [1]))
        _ = try server.written()
        server.send(.callStart(streamID: 1, Self.start()))
        #expect(try server.written().isEmpty)
    }
}

@Suite("FrameConnection keepalive and connection management")
struct FrameConnectionKeepaliveTests {
    typealias V1 = ReaderGatewayV1

    @Test("a quiet connection is pinged and the answer measured")
    func keepalivePing() throws {
        var pair = FrameConnectionPair(client: ConnectionConfiguration(role: .client, keepalive: .init(interval: .seconds(10))))
        pair.exchange()
        #expect(pair.advance(by: .seconds(5)).client.isEmpty)
        let events = pair.advance(by: .seconds(5)).client
        #expect(events == [.pingAcknowledged(roundTrip: .zero)])
    }

    @Test("an unanswered keepalive closes the connection with KEEPALIVE_TIMEOUT")
    func keepaliveTimeout() throws {
        var client = FrameConnection(
            configuration: ConnectionConfiguration(role: .client, keepalive: .init(interval: .seconds(10), timeout: .seconds(2))),
            now: WireTime(nanoseconds: 0)
        )
        var settings: [UInt8] = []
        FrameEncoder.append(.settings(ConnectionSettings().message), to: &settings)
        _ = client.receive(settings, now: WireTime(nanoseconds: 0))
        let id = try client.startCall(method: "/a/b", now: WireTime(nanoseconds: 0))
        #expect(client.tick(now: WireTime(nanoseconds: 0).adding(.seconds(10))).isEmpty)  // PING sent
        let events = client.tick(now: WireTime(nanoseconds: 0).adding(.seconds(12)))
        let status = V1.Status(.keepaliveTimeout, "no answer to a keepalive PING within 2.0 seconds")
        #expect(events == [.callEnded(streamID: id, V1.CallEnd(status)), .closed(status)])
    }

    @Test("max idle time: a server with no calls sends GOAWAY and closes")
    func maxIdle() {
        var pair = FrameConnectionPair(server: ConnectionConfiguration(role: .server, maxIdleTime: .seconds(30)))
        pair.exchange()
        _ = pair.advance(by: .seconds(1))
        let (client, server) = pair.advance(by: .seconds(30))
        #expect(server.contains { if case .closed = $0 { true } else { false } })
        #expect(client.contains { if case .goAwayReceived = $0 { true } else { false } })
        #expect(pair.client.state == .closed)
    }

    @Test("max age: GOAWAY at the age, hard close after the grace period")
    func maxAge() throws {
        var pair = FrameConnectionPair(server: ConnectionConfiguration(role: .server, maxAge: .seconds(60), maxAgeGrace: .seconds(5)))
        pair.exchange()
        let id = try pair.client.startCall(method: "/a/b", now: pair.now)
        pair.exchange()
        let atAge = pair.advance(by: .seconds(60))
        #expect(atAge.client.contains { if case .goAwayReceived = $0 { true } else { false } })
        #expect(pair.server.state == .draining)
        let afterGrace = pair.advance(by: .seconds(5))
        #expect(afterGrace.server.contains { if case .callCancelled(id, _) = $0 { true } else { false } })
        #expect(pair.server.state == .closed)
    }
}
