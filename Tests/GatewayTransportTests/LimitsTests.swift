import Foundation
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
        let port = server.port
        let caPath = TestCertificates.shared.caPath
        let record = server.record
        // The client runs on a thread of its own. On Swift's cooperative pool (two threads on
        // two cores) other tests can hold every thread for longer than the idle timeout, and
        // then the client, not the server, would be the one that fell silent.
        let outcome = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<(echoed: Int, elapsed: Duration, closedWhileOpen: [CloseReason]), any Error>) in
            Thread {
                do {
                    let client = try BlockingTLSClient(port: port, caPath: caPath)
                    let start = ContinuousClock.now
                    var echoed = 0
                    for round in 0..<25 {
                        guard client.write([UInt8(round)]), client.read(upTo: 1) == [UInt8(round)] else { break }
                        echoed += 1
                        Thread.sleep(forTimeInterval: 0.1)
                    }
                    // Read while the client is still open: closing it is a close the server records.
                    let closed = record.snapshot.closed
                    continuation.resume(returning: (echoed, ContinuousClock.now - start, closed))
                } catch {
                    continuation.resume(throwing: error)
                }
            }.start()
        }
        #expect(outcome.echoed == 25)
        // 25 × 100 ms spans more than two idle timeouts; the connection must still have been open.
        #expect(outcome.elapsed > .milliseconds(2_500))
        #expect(outcome.closedWhileOpen.isEmpty)
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
            // Long enough that all three silent handshakes are accepted before the first
            // times out, even on a loaded machine (the check below needs all three at once).
            // (3 s was not enough while the whole suite ran on 2 cores.)
            $0.limits.handshakeTimeout = .seconds(5)
        })
        let silent = try (0..<3).map { _ in try BlockingTLSClient(port: server.port) }
        #expect(await eventually(timeout: .seconds(5)) { server.server.handshakingCount == 3 })
        // A real client waits in the backlog until the silent ones time out, then gets served.
        let client = try await AsyncTLSConnection.connect(
            host: "127.0.0.1", port: server.port, context: try TestCertificates.shared.clientContext(), on: server.group.next()
        )
        #expect(server.server.handshakingCount <= 3)
        for socket in silent { #expect(socket.readRaw() == 0) }
        // The peer sees the close before the loop has recorded it: wait for the record.
        #expect(await eventually { server.record.snapshot.closed.count == 3 })
        #expect(server.record.snapshot.closed == [.handshakeTimeout, .handshakeTimeout, .handshakeTimeout])
        client.close()
        await server.stop()
    }
}
