import GatewayTestKit
import GatewayTransport
import Testing

/// What ``TLSServer/statistics`` counts: accepted connections, handshakes by result and reason,
/// and open connections by whether the peer presented a certificate.
@Suite("Server statistics")
struct ServerStatisticsTests {
    private func server(_ configure: @escaping (inout TLSServerConfiguration) -> Void = { _ in }) throws -> TestServer {
        let caPath = TestCertificates.shared.caPath
        return try TestServer(configure: {
            $0.clientAuthentication = .optional(trustedCAPath: caPath)
            configure(&$0)
        })
    }

    @Test("a reader with a certificate and a lane without: accepted, succeeded and open by certificate")
    func readerAndLane() async throws {
        let certificates = TestCertificates.shared
        let server = try server()
        let lane = try await AsyncTLSConnection.connect(
            host: "127.0.0.1", port: server.port, context: try certificates.clientContext(), on: server.group.next()
        )
        let reader = try await AsyncTLSConnection.connect(
            host: "127.0.0.1", port: server.port,
            context: try certificates.clientContext(certificate: certificates.readerClient), on: server.group.next()
        )
        #expect(await eventually { server.record.snapshot.active.count == 2 })
        let open = server.server.statistics
        #expect(open.accepted == 2)
        #expect(open.handshakesWithCertificate == 1)
        #expect(open.handshakesWithoutCertificate == 1)
        #expect(open.handshakesFailed == 0)
        #expect(open.handshaking == 0)
        #expect(open.openWithCertificate == 1)
        #expect(open.openWithoutCertificate == 1)
        #expect(!open.shuttingDown)
        reader.close()
        #expect(await eventually { server.server.statistics.openWithCertificate == 0 })
        #expect(server.server.statistics.openWithoutCertificate == 1)
        lane.close()
        #expect(await eventually { server.server.connectionCount == 0 })
        let closed = server.server.statistics
        #expect(closed.openWithoutCertificate == 0)
        #expect(closed.accepted == 2)
        #expect(closed.handshakesSucceeded == 2)
        await server.stop()
    }

    @Test("plain TCP that sends garbage fails the handshake as protocol")
    func garbage() async throws {
        let server = try server()
        let port = server.port
        let closed = try await onOwnThread { () throws -> Bool in
            let client = try BlockingTLSClient(port: port)
            _ = client.writeRaw(Array("GET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
            return client.waitForServerClose()
        }
        #expect(closed)
        #expect(await eventually { server.server.statistics.handshakesFailed == 1 })
        let statistics = server.server.statistics
        #expect(statistics.handshakeFailures[.protocol] == 1)
        #expect(statistics.accepted == 1)
        #expect(statistics.handshakesSucceeded == 0)
        await server.stop()
    }

    @Test("a client certificate from another CA fails the handshake as certificate")
    func wrongCA() async throws {
        let certificates = TestCertificates.shared
        let server = try server()
        do {
            let client = try await AsyncTLSConnection.connect(
                host: "127.0.0.1", port: server.port,
                context: try certificates.clientContext(certificate: certificates.wrongCAReaderClient), on: server.group.next()
            )
            // TLS 1.3: the client may finish its side before the server's verdict arrives.
            _ = await client.waitUntilClosed(timeout: .seconds(5))
        } catch {
            #expect(error is TransportError)
        }
        #expect(await eventually { server.server.statistics.handshakesFailed == 1 })
        let statistics = server.server.statistics
        #expect(statistics.handshakeFailures[.certificate] == 1)
        #expect(statistics.handshakesSucceeded == 0)
        #expect(statistics.openWithCertificate == 0)
        await server.stop()
    }

    @Test("a peer that closes before its ClientHello fails as closed; a silent one as timeout")
    func closedAndTimeout() async throws {
        let server = try server { $0.limits.handshakeTimeout = .milliseconds(300) }
        let port = server.port
        try await onOwnThread { () throws in
            let client = try BlockingTLSClient(port: port)
            client.abort()
        }
        #expect(await eventually { server.server.statistics.handshakesFailed == 1 })
        #expect(server.server.statistics.handshakeFailures[.closed] == 1)
        let silentClosed = try await onOwnThread { () throws -> Int in try BlockingTLSClient(port: port).readRaw() }
        #expect(silentClosed == 0)
        #expect(await eventually { server.server.statistics.handshakeFailures[.timeout] == 1 })
        #expect(server.server.statistics.handshakesFailed == 2)
        await server.stop()
    }

    @Test("open connections are reported as draining once the server shuts down")
    func draining() async throws {
        let certificates = TestCertificates.shared
        let server = try server()
        let lane = try await AsyncTLSConnection.connect(
            host: "127.0.0.1", port: server.port, context: try certificates.clientContext(), on: server.group.next()
        )
        #expect(await eventually { server.record.snapshot.active.count == 1 })
        #expect(!server.server.statistics.shuttingDown)
        server.server.beginShutdown()
        #expect(server.server.statistics.shuttingDown)
        lane.close()
        await server.stop()
    }
}
