import GatewayTransport
import Testing

@Suite("Backpressure, timeouts and caps")
struct LimitsTests {
    @Test("a peer that stops reading is paused: the server's buffer stays bounded, then resumes")
    func slowReaderPaused() async throws {
        let server = try TestServer(handler: { FloodHandler(record: $0) })
        let client = try BlockingTLSClient(port: server.port, caPath: TestCertificates.shared.caPath, receiveBuffer: 4096)
        // The client reads nothing: once the kernel buffers are full the server must stay
        // unwritable and its own buffer must stop growing.
        let limits = ConnectionLimits()
        let bound = limits.writeBufferHighWater + 32 * 1024
        var stalledChanges = 0
        #expect(await eventually(timeout: .seconds(10), interval: .milliseconds(100)) {
            let snapshot = server.record.snapshot
            guard snapshot.writabilityChanges.last == false else { return false }
            if snapshot.writabilityChanges.count == stalledChanges { return true }
            stalledChanges = snapshot.writabilityChanges.count
            return false
        })
        #expect(server.record.snapshot.maxBuffered <= bound)
        #expect(server.server.connectionCount == 1)
        // Start reading: the buffer drains and the server hears it is writable again.
        var total = 0
        for _ in 0..<20_000 where server.record.snapshot.writabilityChanges.count == stalledChanges {
            guard let chunk = client.read(upTo: 64 * 1024) else { break }
            total += chunk.count
        }
        #expect(server.record.snapshot.writabilityChanges.count > stalledChanges)
        #expect(total > 0)
        #expect(server.record.snapshot.maxBuffered <= bound)
        await server.stop()
    }

    @Test("with the close policy, a peer that stops reading is disconnected")
    func slowReaderClosed() async throws {
        let server = try TestServer(configure: { $0.limits.slowPeerPolicy = .close }, handler: { FloodHandler(record: $0) })
        let client = try BlockingTLSClient(port: server.port, caPath: TestCertificates.shared.caPath, receiveBuffer: 4096)
        #expect(await eventually { server.record.snapshot.closed == [.writeBufferOverflow] })
        _ = client
        await server.stop()
    }

    @Test("a TCP connection that never starts a handshake is closed after the handshake timeout")
    func handshakeTimeout() async throws {
        let server = try TestServer(configure: { $0.limits.handshakeTimeout = .milliseconds(300) })
        let started = ContinuousClock.now
        let silent = try BlockingTLSClient(port: server.port)
        // recv returns 0 (orderly close) once the server gives up; bounded by the 5 s socket timeout.
        #expect(silent.readRaw() == 0)
        #expect(ContinuousClock.now - started >= .milliseconds(300))
        #expect(await eventually { server.record.snapshot.closed == [.handshakeTimeout] })
        #expect(server.record.snapshot.active.isEmpty)
        #expect(await eventually { server.server.connectionCount == 0 })
        await server.stop()
    }

    @Test("a connection with no traffic is closed after the idle timeout")
    func idleTimeout() async throws {
        let server = try TestServer(configure: { $0.limits.idleTimeout = .milliseconds(300) })
        let client = try await AsyncTLSConnection.connect(
            host: "127.0.0.1", port: server.port, context: try TestCertificates.shared.clientContext(), on: server.group.next()
        )
        #expect(await eventually { server.record.snapshot.closed == [.idleTimeout] })
        #expect(await client.waitUntilClosed(timeout: .seconds(5)) != nil)
        await server.stop()
    }

    @Test("traffic keeps a connection alive past the idle timeout")
    func activityExtendsIdle() async throws {
        let server = try TestServer(configure: { $0.limits.idleTimeout = .seconds(1) })
        let client = try await AsyncTLSConnection.connect(
            host: "127.0.0.1", port: server.port, context: try TestCertificates.shared.clientContext(), on: server.group.next()
        )
        var iterator = client.inbound.makeAsyncIterator()
        var carry: [UInt8] = []
        let start = ContinuousClock.now
        for round in 0..<25 {
            client.write([UInt8(round)])
            #expect(try await AsyncTLSConnection.read(exactly: 1, from: &iterator, carry: &carry) == [UInt8(round)])
            try await Task.sleep(for: .milliseconds(100))
        }
        // 25 × 100 ms spans more than two idle timeouts; the connection must still be open.
        #expect(ContinuousClock.now - start > .milliseconds(2_500))
        #expect(server.record.snapshot.closed.isEmpty)
        client.close()
        await server.stop()
    }

    @Test("connections over the cap are refused; those under it are served")
    func connectionCap() async throws {
        let server = try TestServer(configure: { $0.limits.maxConnections = 2 })
        let context = try TestCertificates.shared.clientContext()
        var open: [AsyncTLSConnection] = []
        for _ in 0..<2 {
            open.append(try await AsyncTLSConnection.connect(host: "127.0.0.1", port: server.port, context: context, on: server.group.next()))
        }
        await #expect(throws: TransportError.self) {
            _ = try await AsyncTLSConnection.connect(host: "127.0.0.1", port: server.port, context: context, on: server.group.next())
        }
        #expect(server.server.refusedCount == 1)
        open[0].close()
        #expect(await eventually { server.server.connectionCount == 1 })
        open.append(try await AsyncTLSConnection.connect(host: "127.0.0.1", port: server.port, context: context, on: server.group.next()))
        for connection in open { connection.close() }
        await server.stop()
    }

    @Test("slowloris: connections stuck in handshake cannot lock out real clients")
    func handshakeCap() async throws {
        let server = try TestServer(configure: {
            $0.limits.maxHandshaking = 3
            $0.limits.handshakeTimeout = .seconds(1)
        })
        let silent = try (0..<3).map { _ in try BlockingTLSClient(port: server.port) }
        #expect(await eventually { server.server.handshakingCount == 3 })
        // A real client waits in the backlog until the silent ones time out, then gets served.
        let client = try await AsyncTLSConnection.connect(
            host: "127.0.0.1", port: server.port, context: try TestCertificates.shared.clientContext(), on: server.group.next()
        )
        #expect(server.server.handshakingCount <= 3)
        for socket in silent { #expect(socket.readRaw() == 0) }
        #expect(server.record.snapshot.closed == [.handshakeTimeout, .handshakeTimeout, .handshakeTimeout])
        client.close()
        await server.stop()
    }
}
