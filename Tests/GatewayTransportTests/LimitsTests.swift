import Foundation
import GatewayTestKit
import GatewayTransport
import Testing

@Suite("Backpressure, timeouts and caps")
struct LimitsTests {
    @Test("a peer that stops reading is paused: the server's buffer stays bounded, then resumes")
    func slowReaderPaused() async throws {
        let server = try TestServer(handler: { FloodHandler(record: $0) })
        let port = server.port
        let caPath = TestCertificates.shared.caPath
        let client = try await onOwnThread { try BlockingTLSClient(port: port, caPath: caPath, receiveBuffer: 4096) }
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
        let record = server.record
        let stalled = stalledChanges
        let total = await onOwnThread { () -> Int in
            var total = 0
            for _ in 0..<20_000 where record.snapshot.writabilityChanges.count == stalled {
                guard let chunk = client.read(upTo: 64 * 1024) else { break }
                total += chunk.count
            }
            return total
        }
        #expect(server.record.snapshot.writabilityChanges.count > stalledChanges)
        #expect(total > 0)
        #expect(server.record.snapshot.maxBuffered <= bound)
        await server.stop()
    }

    @Test("with the close policy, a peer that stops reading is disconnected")
    func slowReaderClosed() async throws {
        let server = try TestServer(configure: { $0.limits.slowPeerPolicy = .close }, handler: { FloodHandler(record: $0) })
        let port = server.port
        let caPath = TestCertificates.shared.caPath
        let client = try await onOwnThread { try BlockingTLSClient(port: port, caPath: caPath, receiveBuffer: 4096) }
        #expect(await eventually { server.record.snapshot.closed == [.writeBufferOverflow] })
        withExtendedLifetime(client) {}
        await server.stop()
    }

    @Test("a TCP connection that never starts a handshake is closed after the handshake timeout")
    func handshakeTimeout() async throws {
        let server = try TestServer(configure: { $0.limits.handshakeTimeout = .milliseconds(300) })
        let port = server.port
        let (closedAfter, elapsed) = try await onOwnThread { () throws -> (Int, Duration) in
            let started = ContinuousClock.now
            let silent = try BlockingTLSClient(port: port)
            // recv returns 0 (orderly close) once the server gives up; bounded by the 5 s socket timeout.
            return (silent.readRaw(), ContinuousClock.now - started)
        }
        #expect(closedAfter == 0)
        // Not before the timeout: the server waited for a handshake at least that long.
        #expect(elapsed >= .milliseconds(300))
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

    @Test("slowloris: at the handshake cap a new client is served at once; the oldest silent peers make room")
    func handshakeCap() async throws {
        // One loop, so the whole cap is one listener's; a handshake timeout of an hour, so that
        // only the cap can close a silent peer while the test runs.
        let server = try TestServer(loops: 1, configure: {
            $0.limits.maxHandshaking = 3
            $0.limits.handshakeTimeout = .seconds(3_600)
        })
        let port = server.port
        let silent = try await onOwnThread { try (0..<5).map { _ in try BlockingTLSClient(port: port) } }
        // The listener takes connections in arrival order: the real client comes after all five.
        let client = try await AsyncTLSConnection.connect(
            host: "127.0.0.1", port: server.port, context: try TestCertificates.shared.clientContext(), on: server.group.next()
        )
        #expect(try await client.roundTrip([1, 2, 3]) == [1, 2, 3])
        // The three oldest silent peers were closed to make room (two by the fourth and fifth
        // silent peer, one by the client); the two newest are still open.
        let closed = await onOwnThread { silent.prefix(3).map { $0.waitForServerClose() } }
        #expect(closed == [true, true, true])
        #expect(!silent[3].isClosedByServer)
        #expect(!silent[4].isClosedByServer)
        #expect(server.server.evictedCount == 3)
        #expect(await eventually { server.record.snapshot.closed == [.handshakeEvicted, .handshakeEvicted, .handshakeEvicted] })
        client.close()
        await server.stop()
    }

    @Test("a source at its own handshake cap only pushes out its own oldest; other sources keep theirs")
    func perSourceHandshakeCap() async throws {
        let server = try TestServer(loops: 1, configure: {
            $0.limits.maxHandshaking = 100
            $0.limits.maxHandshakingPerSource = 2
            $0.limits.handshakeTimeout = .seconds(3_600)
        })
        let port = server.port
        // A quiet neighbour first, then a flood from one address.
        let neighbour = try await onOwnThread { try BlockingTLSClient(port: port, source: "127.0.0.3") }
        let flood = try await onOwnThread { try (0..<4).map { _ in try BlockingTLSClient(port: port, source: "127.0.0.2") } }
        // The client from a third address: accepted after all of them, served.
        let client = try await AsyncTLSConnection.connect(
            host: "127.0.0.1", port: server.port, context: try TestCertificates.shared.clientContext(), on: server.group.next()
        )
        #expect(try await client.roundTrip([9]) == [9])
        let closed = await onOwnThread { flood.prefix(2).map { $0.waitForServerClose() } }
        #expect(closed == [true, true])
        #expect(!flood[2].isClosedByServer)
        #expect(!flood[3].isClosedByServer)
        #expect(!neighbour.isClosedByServer)
        #expect(server.server.evictedCount == 2)
        client.close()
        await server.stop()
    }

    @Test("a peer that sends part of a ClientHello holds no TLS state and is closed before a peer whose hello was answered")
    func partialHelloGoesFirst() async throws {
        let server = try TestServer(loops: 1, configure: {
            $0.limits.maxHandshaking = 2
            $0.limits.handshakeTimeout = .seconds(3_600)
        })
        let port = server.port
        // The oldest connection has its ClientHello answered and then stalls: a TLS client that
        // never sends its last flight (a real client, on a slow network). The next one dribbles
        // the first four bytes of a handshake record and stops.
        let stalled = try await onOwnThread { try BlockingTLSClient.stalledAfterHello(port: port) }
        let partial = try await onOwnThread { () throws -> BlockingTLSClient in
            let client = try BlockingTLSClient(port: port)
            guard client.writeRaw([0x16, 0x03, 0x01, 0x02]) else { throw BlockingTLSClient.Failure("write") }
            return client
        }
        // A third connection at a cap of two: the partial hello goes, though it is the newer one.
        let client = try await AsyncTLSConnection.connect(
            host: "127.0.0.1", port: server.port, context: try TestCertificates.shared.clientContext(), on: server.group.next()
        )
        #expect(try await client.roundTrip([7]) == [7])
        #expect(await onOwnThread { partial.waitForServerClose() })
        #expect(!stalled.isClosedByServer)
        #expect(server.server.evictedCount == 1)
        client.close()
        await server.stop()
    }
}
