import GatewayWire
import Testing

/// Calls over an in-memory client/server pair.
@Suite("FrameConnection calls")
struct FrameConnectionCallTests {
    typealias V1 = ReaderGatewayV1

    func request(_ reader: String) -> V1.ConnectReaderRequest {
        var request = V1.ConnectReaderRequest()
        request.readerID = reader
        request.failIfInUse = true
        return request
    }

    @Test("a unary call: request, response, status")
    func unary() throws {
        var pair = FrameConnectionPair()
        pair.exchange()
        let id = try pair.client.startCall(method: V1.Sdk.connectReader.path, timeout: .seconds(5), now: pair.now)
        try pair.client.send(request("tmr_1"), on: id)
        try pair.client.halfClose(id)
        let server = pair.exchange().server
        guard case .callStarted(id, let start, let deadline) = server.first else {
            Issue.record("expected callStarted, got \(server)")
            return
        }
        #expect(start.method == "/readergateway.v1.Sdk/ConnectReader")
        #expect(deadline == pair.now.adding(.seconds(5)))
        #expect(server.dropFirst().first == .message(streamID: id, request("tmr_1").serializedBytes()))
        #expect(server.last == .halfClosed(streamID: id))

        var response = V1.ConnectReaderResponse()
        response.generation = 4
        try pair.server.send(response, on: id)
        try pair.server.endCall(id, status: .ok)
        let client = pair.exchange().client
        #expect(client == [
            .message(streamID: id, response.serializedBytes()),
            .callEnded(streamID: id, V1.CallEnd(.ok)),
        ])
        #expect(pair.client.openStreamCount == 0)
        #expect(pair.server.openStreamCount == 0)
    }

    @Test("server streaming and bidirectional calls, multiplexed on one connection")
    func multiplexed() throws {
        var pair = FrameConnectionPair()
        pair.exchange()
        let events = try pair.client.startCall(method: V1.Sdk.subscribeEvents.path, now: pair.now)
        let attach = try pair.client.startCall(method: V1.ReaderLink.attach.path, now: pair.now)
        #expect(events == 1 && attach == 3)
        try pair.client.send(V1.SubscribeEventsRequest(), on: events)
        try pair.client.halfClose(events)
        try pair.client.send(V1.ReaderUplink(), on: attach)
        pair.exchange()
        for sequence in 1...3 {
            var event = V1.SessionEvent()
            event.sequence = UInt64(sequence)
            try pair.server.send(event, on: events)
            try pair.server.send(V1.ReaderDownlink(), on: attach)
        }
        let client = pair.exchange().client
        #expect(client.filter { if case .message(events, _) = $0 { true } else { false } }.count == 3)
        #expect(client.filter { if case .message(attach, _) = $0 { true } else { false } }.count == 3)
        // The bidirectional call keeps going after the streaming one ends.
        try pair.server.endCall(events, status: .ok)
        try pair.client.send(V1.ReaderUplink(), on: attach)
        let (clientEnd, server) = pair.exchange()
        #expect(clientEnd == [.callEnded(streamID: events, V1.CallEnd(.ok))])
        #expect(server.count == 1)
        #expect(pair.client.isOpen(attach) && !pair.client.isOpen(events))
    }

    @Test("the client cancels: the server handler is told, late frames are ignored")
    func clientCancel() throws {
        var pair = FrameConnectionPair()
        pair.exchange()
        let id = try pair.client.startCall(method: V1.Sdk.collectPaymentMethod.path, now: pair.now)
        pair.exchange()
        pair.client.cancel(id)
        try pair.server.send(V1.CollectPaymentMethodResponse(), on: id)  // crosses the CANCEL
        let (client, server) = pair.exchange()
        #expect(server == [.callCancelled(streamID: id, V1.Status(.cancelledByPeer, "the call was cancelled"))])
        #expect(client.isEmpty)
        #expect(pair.client.state == .active && pair.server.state == .active)
    }

    @Test("the server cancels: the client sees the status")
    func serverCancel() throws {
        var pair = FrameConnectionPair()
        pair.exchange()
        let id = try pair.client.startCall(method: V1.Sdk.collectPaymentMethod.path, now: pair.now)
        pair.exchange()
        pair.server.cancel(id, status: V1.Status(.readerOffline, "reader gone"))
        let client = pair.exchange().client
        #expect(client == [.callEnded(streamID: id, V1.CallEnd(V1.Status(.readerOffline, "reader gone")))])
    }

    @Test("deadlines end the call on both sides")
    func deadlines() throws {
        var pair = FrameConnectionPair()
        pair.exchange()
        let id = try pair.client.startCall(method: V1.Sdk.discoverReaders.path, timeout: .milliseconds(250), now: pair.now)
        pair.exchange()
        #expect(pair.client.nextTimerDeadline == pair.now.adding(.milliseconds(250)))
        let early = pair.advance(by: .milliseconds(100))
        #expect(early.client.isEmpty && early.server.isEmpty)
        let (client, server) = pair.advance(by: .milliseconds(150))
        let expired = V1.Status(.deadlineExceeded, "the call's deadline passed")
        #expect(client == [.callEnded(streamID: id, V1.CallEnd(expired))])
        #expect(server == [.callCancelled(streamID: id, expired)])
    }

    @Test("flow control: a slow reader bounds the sender's queue, credit drains it")
    func flowControl() throws {
        let small = ConnectionSettings(initialStreamWindow: 1000, initialConnectionWindow: 1_000_000)
        var pair = FrameConnectionPair(
            client: ConnectionConfiguration(role: .client, localSettings: small),
            server: ConnectionConfiguration(role: .server, maxQueuedBytesPerStream: 2000)
        )
        pair.exchange()
        let id = try pair.client.startCall(method: V1.ReaderLink.attach.path, now: pair.now)
        pair.exchange()
        let payload = [UInt8](repeating: 9, count: 600)
        #expect(try pair.server.send(serialized: payload, on: id))  // window 1000 -> 400
        #expect(try pair.server.send(serialized: payload, on: id))  // 400 > 0 may overshoot -> -200
        #expect(try !pair.server.send(serialized: payload, on: id))  // queued 600
        #expect(try !pair.server.send(serialized: payload, on: id))  // queued 1200
        #expect(throws: WireError.self) { try pair.server.send(serialized: payload + payload, on: id) }
        let delivered = pair.exchange().client
        #expect(delivered.count == 2)
        // The client processes both; the WINDOW_UPDATE releases the queue.
        pair.client.messageConsumed(id, byteCount: 1200)
        let (client, server) = pair.exchange()
        #expect(server == [.writable(streamID: id)])
        #expect(client.count == 2)
    }

    @Test("a long stream through small windows: credit keeps it flowing, buffers stay bounded")
    func steadyFlow() throws {
        let small = ConnectionSettings(initialStreamWindow: 4096, initialConnectionWindow: 16_384)
        var pair = FrameConnectionPair(
            client: ConnectionConfiguration(role: .client, localSettings: small),
            server: ConnectionConfiguration(role: .server, maxQueuedBytesPerStream: 1 << 20)
        )
        pair.exchange()
        let id = try pair.client.startCall(method: V1.Sdk.subscribeEvents.path, now: pair.now)
        pair.exchange()
        let payload = [UInt8](repeating: 1, count: 1000)
        for _ in 0..<500 { try pair.server.send(serialized: payload, on: id) }
        var received = 0
        for _ in 0..<1000 where received < 500 {
            let client = pair.exchange().client
            var inFlight = 0
            for case .message(id, let bytes) in client {
                received += 1
                inFlight += bytes.count
                pair.client.messageConsumed(id, byteCount: bytes.count)
            }
            // Never more than the window plus one frame's overshoot per round.
            #expect(inFlight <= 4096 + 1000)
        }
        #expect(received == 500)
    }

    @Test("END_OF_CALL waits behind queued messages; client messages meanwhile are ignored")
    func endCallBehindQueue() throws {
        let small = ConnectionSettings(initialStreamWindow: 100)
        var pair = FrameConnectionPair(client: ConnectionConfiguration(role: .client, localSettings: small))
        pair.exchange()
        let id = try pair.client.startCall(method: V1.ReaderLink.attach.path, now: pair.now)
        pair.exchange()
        let payload = [UInt8](repeating: 3, count: 150)
        #expect(try pair.server.send(serialized: payload, on: id))
        #expect(try !pair.server.send(serialized: payload, on: id))
        try pair.server.endCall(id, status: .ok)
        try pair.client.send(serialized: [1, 2, 3], on: id)
        let first = pair.exchange()
        #expect(first.server.isEmpty)
        #expect(first.client == [.message(streamID: id, payload)])
        pair.client.messageConsumed(id, byteCount: 150)
        let second = pair.exchange().client
        #expect(second == [.message(streamID: id, payload), .callEnded(streamID: id, V1.CallEnd(.ok))])
        #expect(pair.server.openStreamCount == 0)
    }

    @Test("GOAWAY drains: open calls finish, new ones are refused, then the connection closes")
    func gracefulShutdown() throws {
        var pair = FrameConnectionPair()
        pair.exchange()
        let open = try pair.client.startCall(method: V1.Sdk.heartbeat.path, now: pair.now)
        pair.exchange()
        let late = try pair.client.startCall(method: V1.Sdk.heartbeat.path, now: pair.now)
        _ = pair.server.initiateGracefulShutdown()  // before the late CALL_START arrives
        let (client, _) = pair.exchange()
        #expect(client.contains(.callEnded(streamID: late, V1.CallEnd(V1.Status(.goingAway, "the server sent GOAWAY before processing this call; retry it on a new connection")))))
        #expect(pair.client.state == .draining)
        #expect(throws: WireError.self) { try pair.client.startCall(method: V1.Sdk.heartbeat.path, now: pair.now) }
        let closing = try pair.server.endCall(open, status: .ok)
        #expect(closing.count == 1)
        let closedWith = try #require(closing.first.flatMap { event -> ReaderGatewayV1.Status? in
            if case .closed(let status) = event { status } else { nil }
        }, "ending the last call of a draining connection closes it: \(closing)")
        #expect(closedWith.reason == .goingAway)
        let final = pair.exchange().client
        #expect(final.contains(.callEnded(streamID: open, V1.CallEnd(.ok))))
        #expect(pair.client.state == .closed && pair.server.state == .closed)
    }

    @Test("the peer's concurrency limit: the client refuses to exceed it")
    func concurrencyLimit() throws {
        var pair = FrameConnectionPair(server: ConnectionConfiguration(role: .server, localSettings: ConnectionSettings(maxConcurrentStreams: 2)))
        pair.exchange()
        _ = try pair.client.startCall(method: "/a/b", now: pair.now)
        _ = try pair.client.startCall(method: "/a/b", now: pair.now)
        #expect { try pair.client.startCall(method: "/a/b", now: pair.now) } throws: { ($0 as? WireError)?.code == .tooManyStreams }
    }
}
