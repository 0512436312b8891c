import GatewayRPC
import GatewayTestSupport
import GatewayTransport
import GatewayWire
import Testing

private func location(_ name: String) -> ReaderGatewayV1.Location {
    var message = ReaderGatewayV1.Location()
    message.displayName = name
    return message
}

private func connect(_ server: EchoServer, configure: (inout ClientChannelConfiguration) -> Void = { _ in }) async throws -> ClientChannel {
    var configuration = ClientChannelConfiguration(host: "127.0.0.1", port: server.port, trustedCAPath: ClientTestCertificates.shared.caPath)
    configure(&configuration)
    return try await ClientChannel.connect(configuration, group: server.group)
}

@Suite("ClientChannel over real TLS on loopback")
struct ClientChannelTests {
    @Test("unary round trip, ALPN, metadata")
    func unary() async throws {
        let server = try EchoServer()
        let channel = try await connect(server)
        #expect(channel.connectionInfo?.alpn == "reader-gateway/1")
        let answer = try await channel.unary(EchoServer.unary, location("hello"), timeout: outcomeDeadline)
        #expect(answer.displayName == "hello")
        let auth = try await channel.unary(EchoServer.metadata, location(""), metadata: [.bearer("sk_test_1")])
        #expect(auth.displayName == "Bearer sk_test_1")
        #expect(channel.state == .ready)
        channel.close()
        await server.stop()
    }

    @Test("a server error arrives typed: status code, shared reason, message")
    func typedError() async throws {
        let server = try EchoServer()
        let channel = try await connect(server)
        do {
            _ = try await channel.unary(EchoServer.fail, location("lane 2"))
            Issue.record("the call should have failed")
        } catch let error as RPCError {
            #expect(error.code == .aborted)
            #expect(error.reason == .readerBusy)
            #expect(error.message == "the reader is busy: lane 2")
            #expect(!error.isRetryable)
        }
        // The connection keeps serving.
        #expect(try await channel.unary(EchoServer.unary, location("after")).displayName == "after")
        channel.close()
        await server.stop()
    }

    @Test("server streaming past the flow-control windows")
    func serverStreaming() async throws {
        let server = try EchoServer()
        let channel = try await connect(server)
        // 20 000 small messages: well past the 64 KiB stream window, so credit must flow back.
        var received: [String] = []
        for try await message in channel.serverStreaming(EchoServer.expand, location("20000"), timeout: outcomeDeadline) {
            received.append(message.displayName)
        }
        #expect(received.count == 20_000)
        #expect(received.first == "0")
        #expect(received.last == "19999")
        channel.close()
        await server.stop()
    }

    @Test("bidirectional: each message echoed, HALF_CLOSE ends the call OK")
    func bidirectional() async throws {
        let server = try EchoServer()
        let channel = try await connect(server)
        let call = channel.bidirectional(EchoServer.chat, timeout: outcomeDeadline)
        var iterator = call.responses.makeAsyncIterator()
        for index in 0..<50 {
            try await call.send(location("m\(index)"))
            let echoed = try await iterator.next()
            #expect(echoed?.displayName == "m\(index)")
        }
        call.finish()
        #expect(try await iterator.next() == nil)
        channel.close()
        await server.stop()
    }

    @Test("a deadline ends the call with DEADLINE_EXCEEDED and cancels it on the server")
    func deadline() async throws {
        let server = try EchoServer()
        let channel = try await connect(server)
        let started = ContinuousClock.now
        do {
            _ = try await channel.unary(EchoServer.never, location("x"), timeout: .milliseconds(200))
            Issue.record("the call should have timed out")
        } catch let error as RPCError {
            #expect(error.code == .deadlineExceeded)
            #expect(error.reason == .deadlineExceeded)
        }
        // Not before the deadline (the reason above says the deadline, not a hang, ended it).
        #expect(ContinuousClock.now - started >= .milliseconds(200))
        #expect(await eventually { !server.snapshot.cancelled.isEmpty })
        channel.close()
        await server.stop()
    }

    @Test("cancelling the task sends CANCEL and throws CANCELLED")
    func taskCancellation() async throws {
        let server = try EchoServer()
        let channel = try await connect(server)
        let task = Task {
            try await channel.unary(EchoServer.never, location("x"))
        }
        #expect(await eventually { server.snapshot.started == 1 })
        task.cancel()
        do {
            _ = try await task.value
            Issue.record("the call should have been cancelled")
        } catch let error as RPCError {
            #expect(error.code == .cancelled)
        }
        #expect(await eventually { server.snapshot.cancelled.count == 1 })
        #expect(server.snapshot.cancelled.first?.code == .cancelled)
        // A cancelled stream ends too: cancel a stream mid-way.
        let stream = channel.serverStreaming(EchoServer.never, location("y"))
        stream.cancel()
        await #expect(throws: RPCError.self) { for try await _ in stream {} }
        channel.close()
        await server.stop()
    }

    @Test("a unary call from a task already cancelled is started, then cancelled, and throws CANCELLED")
    func cancelledBeforeStart() async throws {
        let server = try EchoServer()
        let channel = try await connect(server)
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await channel.unary(EchoServer.never, location("cleanup"), timeout: outcomeDeadline)
        }
        do {
            _ = try await task.value
            Issue.record("the call should have been cancelled")
        } catch let error as RPCError {
            #expect(error.code == .cancelled)
        }
        // Started first, so a cleanup call made from a cancelled task still reaches the gateway;
        // then cancelled, so the server hears CANCEL for it.
        #expect(await eventually { server.snapshot.cancelled.count == 1 })
        #expect(server.snapshot.started == 1)
        #expect(try await channel.unary(EchoServer.unary, location("next"), timeout: outcomeDeadline).displayName == "next")
        channel.close()
        await server.stop()
    }

    @Test("GOAWAY: the call in flight finishes, new calls fail with a retryable UNAVAILABLE")
    func goAway() async throws {
        let server = try EchoServer()
        let channel = try await connect(server)
        let inFlight = Task { try await channel.unary(EchoServer.held, location("kept"), timeout: outcomeDeadline) }
        #expect(await eventually { server.snapshot.started == 1 })
        server.goAway()
        #expect(await eventually { if case .draining = channel.state { true } else { false } })
        do {
            _ = try await channel.unary(EchoServer.unary, location("new"))
            Issue.record("a new call after GOAWAY should fail")
        } catch let error as RPCError {
            #expect(error.code == .unavailable)
            #expect(error.reason == .goingAway)
            #expect(error.isRetryable)
        }
        server.releaseHeld()
        #expect(try await inFlight.value.displayName == "kept")
        let closed = try await withTimeLimit(outcomeDeadline) { await channel.waitUntilClosed() }
        #expect(closed.code == .unavailable)
        #expect(channel.state.isClosed)
        await server.stop()
    }

    @Test("GOAWAY, then the connection drops: the call in flight and the calls starting end UNAVAILABLE at once")
    func goAwayThenDrop() async throws {
        let server = try EchoServer()
        // No keepalive: the drop alone must end the calls.
        let channel = try await connect(server) { $0.keepalive = nil }
        let inFlight = Task { try await channel.unary(EchoServer.held, location("kept"), timeout: outcomeDeadline) }
        #expect(await eventually { server.snapshot.started == 1 })
        server.goAway()
        #expect(await eventually { if case .draining = channel.state { true } else { false } })
        let starting = (0..<10).map { index in
            Task { try await channel.unary(EchoServer.held, location("new \(index)"), timeout: outcomeDeadline) }
        }
        server.dropConnections()
        for call in [inFlight] + starting {
            do {
                _ = try await withTimeLimit(outcomeDeadline) { try await call.value }
                Issue.record("a call on a dropped connection answered")
            } catch let error as RPCError {
                #expect(error.code == .unavailable, "\(error)")
                #expect(error.isRetryable, "\(error)")
            }
        }
        await server.stop()
    }

    @Test("300 concurrent calls on one connection, above the server's 100 streams")
    func manyConcurrentCalls() async throws {
        let server = try EchoServer()
        let channel = try await connect(server)
        let answers = try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0..<300 {
                group.addTask {
                    let answer = try await channel.unary(EchoServer.unary, location("call \(index)"), timeout: outcomeDeadline)
                    return answer.displayName == "call \(index)"
                }
            }
            var correct = 0
            for try await ok in group where ok { correct += 1 }
            return correct
        }
        #expect(answers == 300)
        #expect(server.snapshot.connections == 1)
        #expect(server.snapshot.maxOpenStreams <= 100)
        channel.close()
        await server.stop()
    }

    @Test("bidirectional calls waiting for a free stream keep their messages and HALF_CLOSE")
    func bidirectionalAboveStreamLimit() async throws {
        let server = try EchoServer()
        let channel = try await connect(server)
        let echoed = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<150 {
                group.addTask {
                    let call = channel.bidirectional(EchoServer.chat, timeout: outcomeDeadline)
                    for message in 0..<3 { try await call.send(location("\(index).\(message)")) }
                    call.finish()
                    var count = 0
                    for try await reply in call.responses where reply.displayName.hasPrefix("\(index).") { count += 1 }
                    return count
                }
            }
            var total = 0
            for try await count in group { total += count }
            return total
        }
        #expect(echoed == 450)
        #expect(server.snapshot.maxOpenStreams <= 100)
        channel.close()
        await server.stop()
    }

    @Test("keepalive: a silent server is detected and calls fail UNAVAILABLE")
    func keepalive() async throws {
        let server = try EchoServer()
        let channel = try await connect(server) { $0.keepalive = .init(interval: .milliseconds(300), timeout: .milliseconds(300)) }
        channel.ping()
        #expect(await eventually { channel.lastPingRoundTrip != nil })
        server.goSilent()
        do {
            _ = try await channel.unary(EchoServer.unary, location("lost"), timeout: outcomeDeadline)
            Issue.record("the call should fail when the server goes silent")
        } catch let error as RPCError {
            #expect(error.code == .unavailable)
            #expect(error.reason == .keepaliveTimeout || error.reason == .connectionLost, "reason \(error.reasonName): \(error.message)")
        }
        #expect(try await withTimeLimit(outcomeDeadline) { await channel.waitUntilClosed() }.code == .unavailable)
        await server.stop()
    }

    @Test("connect failures: untrusted CA, nothing listening")
    func connectFailures() async throws {
        let server = try EchoServer()
        do {
            _ = try await connect(server) { $0.trustedCAPath = ClientTestCertificates.shared.otherCAPath }
            Issue.record("an untrusted server certificate must be refused")
        } catch let error as RPCError {
            #expect(error.code == .unavailable)
            #expect(error.message.contains("rejected"))
        }
        let port = server.port
        await server.stop()
        let group = try EventLoopGroup(loopCount: 1)
        do {
            _ = try await ClientChannel.connect(
                ClientChannelConfiguration(host: "127.0.0.1", port: port, trustedCAPath: ClientTestCertificates.shared.caPath), group: group
            )
            Issue.record("connecting to a closed port must fail")
        } catch let error as RPCError {
            #expect(error.code == .unavailable)
            #expect(error.reason == .connectionLost)
        }
        await group.shutdown()
    }

    @Test("mutual TLS: a client certificate is presented when configured")
    func mutualTLS() async throws {
        let certificates = ClientTestCertificates.shared
        let server = try EchoServer(clientAuthentication: .required(trustedCAPath: certificates.caPath))
        let channel = try await connect(server) { $0.clientCertificate = certificates.readerClient }
        #expect(try await channel.unary(EchoServer.unary, location("reader")).displayName == "reader")
        channel.close()
        // Without a certificate the server refuses the connection (TLS 1.3 reports it after the handshake).
        var refused = false
        do {
            let anonymous = try await connect(server)
            _ = try await anonymous.unary(EchoServer.unary, location("anonymous"), timeout: outcomeDeadline)
        } catch is RPCError {
            refused = true
        }
        #expect(refused)
        await server.stop()
    }
}
