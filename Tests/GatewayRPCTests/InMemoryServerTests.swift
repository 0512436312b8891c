import GatewayRPC
import GatewayTestSupport
import GatewayTransport
import GatewayWire
import Synchronization
import Testing

/// The server's call layer served in memory: a ``CallServer`` over ``InMemoryTransport``,
/// called by a real ``ClientChannel``, with no socket and no TLS.
@Suite("CallServer over the in-memory transport")
struct InMemoryServerTests {
    @Test("unary: the response, the call's context, and an OK counted for the method")
    func unary() async throws {
        let served = try await ServedEcho()
        let channel = try await served.transport.connect(peer: "lane-7", verifiedClientIdentity: "WSC-1")
        let answer = try await channel.unary(Echo.unary, location("hello"), metadata: [.bearer("sk_test_1")], timeout: outcomeDeadline)
        #expect(answer.displayName == "hello")
        let context = try await channel.unary(Echo.context, location(""), metadata: [.bearer("sk_test_1")], timeout: outcomeDeadline)
        #expect(context.displayName == "\(Echo.context.path) lane-7 WSC-1 Bearer sk_test_1")
        #expect(served.metrics.count("Unary", .ok) == 1)
        channel.close()
        await served.stop()
    }

    @Test("a handler's own error ends the call with its status; the connection keeps serving")
    func errors() async throws {
        let served = try await ServedEcho()
        let channel = try await served.transport.connect()
        do {
            _ = try await channel.unary(Echo.fail, location("lane 2"), timeout: outcomeDeadline)
            Issue.record("the call should have failed")
        } catch let error as RPCError {
            #expect(error.code == .aborted)
            #expect(error.reason == .readerBusy)
            #expect(error.message == "the reader is busy: lane 2")
        }
        #expect(try await channel.unary(Echo.unary, location("after"), timeout: outcomeDeadline).displayName == "after")
        #expect(served.metrics.count("Fail", .aborted) == 1)
        channel.close()
        await served.stop()
    }

    @Test("server streaming past the flow-control windows, then OK")
    func serverStreaming() async throws {
        let served = try await ServedEcho()
        let channel = try await served.transport.connect()
        // 5 000 messages: past the 64 KiB stream window, so credit must flow back through the pipe.
        var received = 0
        for try await message in channel.serverStreaming(Echo.expand, location("5000"), timeout: outcomeDeadline) {
            #expect(message.displayName == "\(received)")
            received += 1
        }
        #expect(received == 5000)
        #expect(served.metrics.count("Expand", .ok) == 1)
        channel.close()
        await served.stop()
    }

    @Test("bidirectional: each message answered in order, HALF_CLOSE ends the call OK")
    func bidirectional() async throws {
        let served = try await ServedEcho()
        let channel = try await served.transport.connect()
        let call = channel.bidirectional(Echo.chat, timeout: outcomeDeadline)
        var iterator = call.responses.makeAsyncIterator()
        for word in ["one", "two", "three"] {
            try await call.send(location(word))
            #expect(try await iterator.next()?.displayName == "echo \(word)")
        }
        call.finish()
        #expect(try await iterator.next()?.displayName == "ended after 3")
        #expect(try await iterator.next() == nil)
        channel.close()
        await served.stop()
    }

    @Test("a deadline ends the call with DEADLINE_EXCEEDED on the client and cancels it on the server")
    func deadline() async throws {
        let served = try await ServedEcho()
        let channel = try await served.transport.connect()
        let started = ContinuousClock.now
        do {
            _ = try await channel.unary(Echo.never, location("x"), timeout: .milliseconds(200))
            Issue.record("the call should have timed out")
        } catch let error as RPCError {
            #expect(error.code == .deadlineExceeded)
            #expect(error.reason == .deadlineExceeded)
        }
        #expect(ContinuousClock.now - started >= .milliseconds(200))
        // The server heard the end of the call (its cancel handler ran) and counted it.
        #expect(await served.events.heard("started x"))
        #expect(await served.events.heard("cancelled x"))
        channel.close()
        await served.stop()
    }

    @Test("cancelling the caller's task sends CANCEL: the client sees CANCELLED, the server's handler hears it")
    func cancellation() async throws {
        let served = try await ServedEcho()
        let channel = try await served.transport.connect()
        let task = Task { try await channel.unary(Echo.never, location("y"), timeout: outcomeDeadline) }
        #expect(await served.events.heard("started y"))
        task.cancel()
        do {
            _ = try await task.value
            Issue.record("the call should have been cancelled")
        } catch let error as RPCError {
            #expect(error.code == .cancelled)
        }
        #expect(await served.events.heard("cancelled y"))
        #expect(await eventually { served.metrics.count("Never", .cancelled) == 1 })
        channel.close()
        await served.stop()
    }

    @Test("a method no route serves ends with UNIMPLEMENTED / METHOD_NOT_FOUND, counted as `other`")
    func unknownMethod() async throws {
        let served = try await ServedEcho()
        let channel = try await served.transport.connect()
        do {
            _ = try await channel.unary(Echo.unknown, location("?"), timeout: outcomeDeadline)
            Issue.record("an unknown method was served")
        } catch let error as RPCError {
            #expect(error.code == .unimplemented)
            #expect(error.reason == .methodNotFound)
            #expect(error.message.contains(Echo.unknown.path))
        }
        #expect(served.metrics.count("other", .unimplemented) == 1)
        #expect(try await channel.unary(Echo.unary, location("still"), timeout: outcomeDeadline).displayName == "still")
        channel.close()
        await served.stop()
    }

    @Test("closing the channel ends the server's connection: its calls are cancelled and the server is told")
    func closing() async throws {
        let served = try await ServedEcho()
        let channel = try await served.transport.connect()
        let stream = channel.serverStreaming(Echo.hold, location("z"), timeout: outcomeDeadline)
        var iterator = stream.makeAsyncIterator()
        #expect(try await iterator.next()?.displayName == "holding z")
        channel.close()
        #expect(await served.events.heard("cancelled z"))
        #expect(await served.events.heard("connection closed"))
        await served.stop()
    }
}

// MARK: - the served service

private func location(_ name: String) -> ReaderGatewayV1.Location {
    var message = ReaderGatewayV1.Location()
    message.displayName = name
    return message
}

private enum Echo {
    typealias Method = ProtobufMethod<ReaderGatewayV1.Location, ReaderGatewayV1.Location>
    static let unary = Method(service: "test.Echo", method: "Unary", kind: .unary)
    static let context = Method(service: "test.Echo", method: "Context", kind: .unary)
    static let fail = Method(service: "test.Echo", method: "Fail", kind: .unary)
    static let never = Method(service: "test.Echo", method: "Never", kind: .unary)
    static let expand = Method(service: "test.Echo", method: "Expand", kind: .serverStreaming)
    static let hold = Method(service: "test.Echo", method: "Hold", kind: .serverStreaming)
    static let chat = Method(service: "test.Echo", method: "Chat", kind: .bidirectionalStreaming)
    static let unknown = Method(service: "test.Echo", method: "NoSuchMethod", kind: .unary)
}

/// A handler's own error type, as a service keeps one.
private struct EchoFailure: CallFailure {
    var status: ReaderGatewayV1.Status
}

/// What the handlers saw, in order, for the tests to wait on.
private final class EchoEvents: Sendable {
    private let list = Mutex<[String]>([])

    func record(_ event: String) { list.withLock { $0.append(event) } }

    var recorded: [String] { list.withLock { $0 } }

    /// Waits until `event` was recorded (false: not within the outcome deadline).
    func heard(_ event: String) async -> Bool {
        await eventually { recorded.contains(event) }
    }
}

/// The test service: one route of each kind.
private struct EchoService: RouteProvider {
    let events: EchoEvents

    func registerMethods(with router: inout MethodRouter) {
        let events = self.events
        router.register(Echo.unary.path, UnaryRoute<ReaderGatewayV1.Location, ReaderGatewayV1.Location>.task { request, _ throws(EchoFailure) in request }.handler)
        router.register(Echo.context.path, UnaryRoute<ReaderGatewayV1.Location, ReaderGatewayV1.Location>.task { _, context throws(EchoFailure) in
            location("\(context.method) \(context.peer) \(context.verifiedClientIdentity ?? "-") \(context.metadataValue("authorization") ?? "-")")
        }.handler)
        router.register(Echo.fail.path, UnaryRoute<ReaderGatewayV1.Location, ReaderGatewayV1.Location>.task { request, _ throws(EchoFailure) in
            throw EchoFailure(status: ReaderGatewayV1.Status(.readerBusy, "the reader is busy: \(request.displayName)"))
        }.handler)
        router.register(Echo.never.path, UnaryRoute<ReaderGatewayV1.Location, ReaderGatewayV1.Location>.onLoop { request, call, _ in
            events.record("started \(request.displayName)")
            call.onCancel { events.record("cancelled \(request.displayName)") }
        }.handler)
        router.register(Echo.expand.path, ServerStreamingRoute<ReaderGatewayV1.Location, ReaderGatewayV1.Location>.task { request, call, _ in
            for index in 0..<(Int(request.displayName) ?? 0) { call.send(location("\(index)")) }
            call.end()
        }.handler)
        router.register(Echo.hold.path, ServerStreamingRoute<ReaderGatewayV1.Location, ReaderGatewayV1.Location>.onLoop { request, call, _ in
            call.onCancel { events.record("cancelled \(request.displayName)") }
            call.send(location("holding \(request.displayName)"))
        }.handler)
        router.register(Echo.chat.path, BidirectionalRoute<ReaderGatewayV1.Location, ReaderGatewayV1.Location>.task { requests, call, _ in
            var count = 0
            for await bytes in requests {
                guard let request = try? ReaderGatewayV1.Location(serializedBytes: bytes) else { continue }
                count += 1
                call.send(location("echo \(request.displayName)"))
            }
            call.send(location("ended after \(count)"))
            call.end()
        }.handler)
    }
}

/// Counts what the call layer reports, by method and status.
private final class RecordedCallMetrics: CallMetrics {
    private let counts = Mutex<[String: Int]>([:])

    func count(_ method: String, _ status: ReaderGatewayV1.StatusCode) -> Int {
        counts.withLock { $0["\(method) \(status.rawValue)", default: 0] }
    }

    private func add(_ key: String) { counts.withLock { $0[key, default: 0] += 1 } }

    func okCallCounter(method: String) -> @Sendable () -> Void {
        let key = "\(method) \(ReaderGatewayV1.StatusCode.ok.rawValue)"
        return { [self] in add(key) }
    }

    func callEnded(method: String, status: ReaderGatewayV1.StatusCode) { add("\(method) \(status.rawValue)") }
    func connectionMoved() { add("moved") }
    func webSocketUpgraded() { add("upgraded") }
    func webSocketRefused(kind: String) { add("refused \(kind)") }
}

/// The echo service served in memory on a loop of its own.
private struct ServedEcho {
    let group: EventLoopGroup
    let events = EchoEvents()
    let metrics = RecordedCallMetrics()
    let transport: InMemoryTransport

    init() async throws {
        group = try EventLoopGroup(loopCount: 1, threadNamePrefix: "rg-inmem")
        var router = MethodRouter()
        EchoService(events: events).registerMethods(with: &router)
        let events = self.events
        let server = CallServer(router: router, metrics: metrics, connectionClosed: { _ in events.record("connection closed") })
        transport = InMemoryTransport(serving: server, on: group.next())
    }

    func stop() async { await group.shutdown() }
}
