import CGatewayLinux
import Foundation
import GatewayTestKit
import GatewayTransport
import Testing

@Suite("Certificates at start, reload and graceful shutdown")
struct LifecycleTests {
    @Test("a missing certificate file fails the start with a message naming it")
    func missingFile() throws {
        let group = try EventLoopGroup(loopCount: 1)
        defer { group.syncShutdown() }
        let pair = CertificateKeyPair(certificateChainPath: "/nonexistent/server.pem", privateKeyPath: "/nonexistent/server-key.pem")
        let configuration = TLSServerConfiguration(host: "127.0.0.1", port: 0, certificates: [pair])
        let error = #expect(throws: TransportError.self) {
            _ = try TLSServer(configuration: configuration, group: group) { _ in EchoHandler(record: ServerRecord()) }
        }
        #expect(error?.code == .certificateFile)
        #expect(error?.message.contains("/nonexistent/server.pem does not exist") == true)
    }

    @Test("a key that does not match the certificate fails the start")
    func mismatchedKey() throws {
        let certificates = TestCertificates.shared
        let group = try EventLoopGroup(loopCount: 1)
        defer { group.syncShutdown() }
        let pair = CertificateKeyPair(
            certificateChainPath: certificates.serverECDSA.certificateChainPath,
            privateKeyPath: certificates.readerClient.privateKeyPath
        )
        let configuration = TLSServerConfiguration(host: "127.0.0.1", port: 0, certificates: [pair])
        let error = #expect(throws: TransportError.self) {
            _ = try TLSServer(configuration: configuration, group: group) { _ in EchoHandler(record: ServerRecord()) }
        }
        #expect(error?.code == .keyMismatch || error?.code == .privateKeyFile)
        #expect(error?.message.contains("does not belong") == true || error?.message.contains("must match") == true)
    }

    @Test("reloading certificates keeps open connections and serves new ones with the new certificate")
    func reload() async throws {
        let certificates = TestCertificates.shared
        let directory = certificates.directory + "/reload-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let live = CertificateKeyPair(certificateChainPath: directory + "/live.pem", privateKeyPath: directory + "/live-key.pem")
        func install(_ pair: CertificateKeyPair) throws {
            for (from, to) in [(pair.certificateChainPath, live.certificateChainPath), (pair.privateKeyPath, live.privateKeyPath)] {
                try? FileManager.default.removeItem(atPath: to)
                try FileManager.default.copyItem(atPath: from, toPath: to)
            }
        }
        try install(certificates.serverECDSA)
        let server = try TestServer(configure: { $0.certificates = [live] })
        let before = try await AsyncTLSConnection.connect(
            host: "127.0.0.1", port: server.port, context: try certificates.clientContext(), on: server.group.next()
        )
        // Swap in a certificate from the other CA and reload.
        try install(certificates.wrongCAServer)
        try server.server.reloadCertificates()
        // The open connection still works.
        before.write([42])
        var iterator = before.inbound.makeAsyncIterator()
        var carry: [UInt8] = []
        #expect(try await AsyncTLSConnection.read(exactly: 1, from: &iterator, carry: &carry) == [42])
        // New clients see the new certificate: the old CA no longer verifies, the other CA does.
        await #expect(throws: TransportError.self) {
            _ = try await AsyncTLSConnection.connect(
                host: "127.0.0.1", port: server.port, context: try certificates.clientContext(), on: server.group.next()
            )
        }
        let after = try await AsyncTLSConnection.connect(
            host: "127.0.0.1", port: server.port, context: try certificates.clientContext(ca: certificates.otherCAPath),
            on: server.group.next()
        )
        // A broken reload (missing key) is refused and the running certificate stays.
        try FileManager.default.removeItem(atPath: live.privateKeyPath)
        #expect(throws: TransportError.self) { try server.server.reloadCertificates() }
        let still = try await AsyncTLSConnection.connect(
            host: "127.0.0.1", port: server.port, context: try certificates.clientContext(ca: certificates.otherCAPath),
            on: server.group.next()
        )
        // Only the client that trusted the old CA was closed (its handshake failed); nothing was dropped.
        let closed = server.record.snapshot.closed
        #expect(closed.count == 1)
        #expect(closed.allSatisfy { if case .handshakeFailed = $0 { true } else { false } })
        for connection in [before, after, still] { connection.close() }
        await server.stop()
    }

    @Test("graceful shutdown asks handlers to say goodbye, then stops accepting")
    func gracefulShutdown() async throws {
        final class GoodbyeHandler: ConnectionHandler {
            func connectionActive(_ connection: TLSConnection, info: ConnectionInfo) {}
            func bytesReceived(_ bytes: UnsafeRawBufferPointer, on connection: TLSConnection) { connection.write(Array(bytes)) }
            func shutdownRequested(on connection: TLSConnection) {
                connection.write(Array("bye".utf8))
                connection.close(graceful: true)
            }
            func connectionClosed(_ reason: CloseReason, on connection: TLSConnection) {}
        }
        let server = try TestServer(handler: { _ in GoodbyeHandler() })
        let context = try TestCertificates.shared.clientContext()
        let client = try await AsyncTLSConnection.connect(host: "127.0.0.1", port: server.port, context: context, on: server.group.next())
        // One echo, so the server has finished its side of the handshake too (a connection still
        // in handshake is closed at once by a shutdown, not asked to say goodbye).
        client.write([1])
        var inbound = client.inbound.makeAsyncIterator()
        var carry: [UInt8] = []
        #expect(try await AsyncTLSConnection.read(exactly: 1, from: &inbound, carry: &carry) == [1])
        // Every connection said goodbye and closed: none was closed by force at the grace period's end.
        #expect(await server.server.shutdown(gracePeriod: .seconds(5)))
        var received = carry
        while let chunk = try await inbound.next() { received += chunk }
        #expect(received == Array("bye".utf8))
        #expect(await client.waitUntilClosed(timeout: .seconds(5)) == .closedByPeer)
        #expect(server.server.connectionCount == 0)
        await #expect(throws: TransportError.self) {
            _ = try await AsyncTLSConnection.connect(host: "127.0.0.1", port: server.port, context: context, on: server.group.next())
        }
        await server.group.shutdown()
    }

    @Test("the development CA is created once, reused, and verifies localhost by name and address")
    func developmentCA() async throws {
        let directory = TestCertificates.shared.directory + "/dev-\(UUID().uuidString)"
        let first = try DevelopmentCertificates.ensure(in: directory, hostNames: ["gateway.test"])
        let caBefore = try String(contentsOfFile: first.caCertificatePath, encoding: .utf8)
        let serverBefore = try String(contentsOfFile: first.server.certificateChainPath, encoding: .utf8)
        let second = try DevelopmentCertificates.ensure(in: directory, hostNames: ["gateway.test"])
        #expect(try String(contentsOfFile: second.caCertificatePath, encoding: .utf8) == caBefore)
        #expect(try String(contentsOfFile: second.server.certificateChainPath, encoding: .utf8) == serverBefore)
        let attributes = try FileManager.default.attributesOfItem(atPath: second.caKeyPath)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)

        let server = try TestServer(configure: { $0.certificates = [second.server] })
        let context = try TestCertificates.shared.clientContext(ca: second.caCertificatePath)
        for (host, name) in [("127.0.0.1", nil), ("127.0.0.1", "localhost"), ("127.0.0.1", "gateway.test")] as [(String, String?)] {
            let client = try await AsyncTLSConnection.connect(host: host, port: server.port, serverName: name, context: context, on: server.group.next())
            client.close()
        }
        await server.stop()
    }
}

@Suite("Event loops")
struct EventLoopTests {
    @Test("execute runs on the loop thread; schedule runs after its delay, and cancel prevents it")
    func executeAndSchedule() async throws {
        let group = try EventLoopGroup(loopCount: 2)
        let loop = group.next()
        let onLoop = await withCheckedContinuation { continuation in
            loop.execute { continuation.resume(returning: loop.inEventLoop) }
        }
        #expect(onLoop)
        #expect(!loop.inEventLoop)
        let started = ContinuousClock.now
        let elapsed = await withCheckedContinuation { continuation in
            loop.schedule(after: .milliseconds(50)) { continuation.resume(returning: ContinuousClock.now - started) }
        }
        #expect(elapsed >= .milliseconds(50))
        let record = ServerRecord()
        // Schedule and cancel within one loop task, so the loop cannot run the timer in between.
        loop.execute {
            let cancelled = loop.schedule(after: .milliseconds(20)) { record.update { $0.received += 1 } }
            cancelled.cancel()
        }
        let marker = await withCheckedContinuation { continuation in
            loop.schedule(after: .milliseconds(60)) { continuation.resume(returning: true) }
        }
        #expect(marker)
        #expect(record.snapshot.received == 0)
        await group.shutdown()
    }

    @Test("tasks queued from the loop's own thread run without a wake-up, also from a task and from a timer")
    func executeFromTheLoopItself() async throws {
        // An idle loop blocks in epoll_wait with no timeout. A task queued on the loop thread
        // writes no eventfd, so if the loop did not poll without blocking after it, these chains
        // would stall and the counts below would not be reached.
        let group = try EventLoopGroup(loopCount: 1)
        let loop = group.next()
        let record = ServerRecord()
        loop.execute {
            loop.execute { loop.execute { if loop.inEventLoop { record.update { $0.received += 1 } } } }
        }
        #expect(await eventually { record.snapshot.received == 1 })
        loop.schedule(after: .milliseconds(10)) {
            loop.execute { if loop.inEventLoop { record.update { $0.received += 1 } } }
        }
        #expect(await eventually { record.snapshot.received == 2 })
        await group.shutdown()
    }

    @Test("ten thousand timers fire in deadline order")
    func manyTimers() async throws {
        let group = try EventLoopGroup(loopCount: 1)
        let loop = group.next()
        let count = 10_000
        // A timer's deadline is the loop's clock at `schedule` plus its delay: it lies between
        // the clock read just before the call and just after it, plus the delay. The delays are
        // distinct and spread over 20 ms (7,919 is prime to 20,000), far wider than one call.
        let window = LockedBox<[(earliest: UInt64, latest: UInt64)]>([])
        let fired = LockedBox<[Int]>([])
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            loop.execute {
                var bounds: [(earliest: UInt64, latest: UInt64)] = []
                bounds.reserveCapacity(count)
                for index in 0..<count {
                    let delay = Duration.microseconds((index * 7_919) % 20_000)
                    let before = rg_monotonic_nanoseconds()
                    loop.schedule(after: delay) {
                        let all = fired.withLock { order -> Bool in
                            order.append(index)
                            return order.count == count
                        }
                        if all { continuation.resume() }
                    }
                    let after = rg_monotonic_nanoseconds()
                    bounds.append((before + delay.nanoseconds, after + delay.nanoseconds))
                }
                // Timers run only after this task returns, so the window is complete before any fires.
                window.withLock { $0 = bounds }
            }
        }
        await group.shutdown()
        let bounds = window.withLock { $0 }
        let order = fired.withLock { $0 }
        #expect(order.sorted() == Array(0..<count), "every timer fires, once")
        // Out of order: a timer fired after one whose deadline is provably later (the latest
        // lower bound among the timers fired so far is past its upper bound).
        var latestFiredSoFar: (deadline: UInt64, index: Int)?
        var inversions: [String] = []
        for index in order {
            if let earlier = latestFiredSoFar, earlier.deadline > bounds[index].latest {
                inversions.append("timer \(earlier.index) (deadline ≥ \(earlier.deadline)) fired before timer \(index) (deadline ≤ \(bounds[index].latest))")
            }
            if latestFiredSoFar.map({ bounds[index].earliest > $0.deadline }) ?? true {
                latestFiredSoFar = (bounds[index].earliest, index)
            }
        }
        #expect(inversions.isEmpty, "\(inversions.count) out of order, first: \(inversions.prefix(3))")
    }

    @Test("connections are spread across loops")
    func spread() async throws {
        let server = try TestServer()
        let context = try TestCertificates.shared.clientContext()
        var clients: [AsyncTLSConnection] = []
        for _ in 0..<16 {
            clients.append(try await AsyncTLSConnection.connect(host: "127.0.0.1", port: server.port, context: context, on: server.group.next()))
        }
        #expect(await eventually { server.record.snapshot.active.count == 16 })
        for client in clients { client.close() }
        await server.stop()
    }
}
