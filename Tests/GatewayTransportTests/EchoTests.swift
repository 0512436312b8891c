import Foundation
import GatewayTestKit
import GatewayTransport
import Testing

@Suite("TLS echo over loopback")
struct EchoTests {
    @Test("handshake, ALPN and a small round trip")
    func handshakeAndRoundTrip() async throws {
        let server = try TestServer(configure: { $0.alpnProtocols = ["reader-gateway/1", "h2"] })
        let client = try await AsyncTLSConnection.connect(
            host: "127.0.0.1", port: server.port,
            context: try TestCertificates.shared.clientContext(alpn: ["reader-gateway/1"]),
            on: server.group.next()
        )
        #expect(client.info.alpn == "reader-gateway/1")
        #expect(client.info.tlsVersion == "TLSv1.3")
        client.write(Array("hello".utf8))
        var iterator = client.inbound.makeAsyncIterator()
        var carry: [UInt8] = []
        let echoed = try await AsyncTLSConnection.read(exactly: 5, from: &iterator, carry: &carry)
        #expect(echoed == Array("hello".utf8))
        #expect(await eventually { server.record.snapshot.active.first?.alpn == "reader-gateway/1" })
        #expect(server.record.snapshot.active.first?.verifiedClientIdentity == nil)
        client.close()
        await server.stop()
    }

    @Test("RSA and ECDSA certificates on one server; TLS 1.2 with forward secrecy")
    func rsaAndECDSA() async throws {
        let certificates = TestCertificates.shared
        let server = try TestServer(configure: { $0.certificates = [certificates.serverECDSA, certificates.serverRSA] })
        let port = server.port
        let echoed = try await onOwnThread { () throws -> [UInt8]? in
            let client = try BlockingTLSClient(port: port, caPath: certificates.caPath, tls12Only: true)
            return client.write([1, 2, 3]) ? client.read(upTo: 16) : nil
        }
        #expect(echoed == [1, 2, 3])
        #expect(await eventually { server.record.snapshot.active.first?.cipher.hasPrefix("ECDHE-") == true })
        #expect(server.record.snapshot.active.first?.tlsVersion == "TLSv1.2")
        await server.stop()
    }

    @Test("4 MiB each way, echoed, with fragmented writes")
    func largeAndFragmented() async throws {
        let server = try TestServer()
        var clientLimits = ConnectionLimits()
        clientLimits.writeBufferHighWater = 8 * 1024 * 1024
        clientLimits.writeBufferHardLimit = 16 * 1024 * 1024
        let client = try await AsyncTLSConnection.connect(
            host: "127.0.0.1", port: server.port,
            context: try TestCertificates.shared.clientContext(), limits: clientLimits, on: server.group.next()
        )
        var payload = [UInt8](repeating: 0, count: 4 * 1024 * 1024)
        for index in payload.indices { payload[index] = UInt8(truncatingIfNeeded: index &* 31 &+ index >> 11) }
        // Fragmented: the first 1000 bytes one by one, then odd-sized pieces, then a 1 MiB block.
        for index in 0..<1_000 { client.write([payload[index]]) }
        var offset = 1_000
        var size = 1
        while offset < 3 * 1024 * 1024 {
            let end = min(offset + size, payload.count)
            client.write(Array(payload[offset..<end]))
            offset = end
            size = size * 3 % 70_001 + 1
        }
        client.write(Array(payload[offset...]))
        var iterator = client.inbound.makeAsyncIterator()
        var carry: [UInt8] = []
        let echoed = try await AsyncTLSConnection.read(exactly: payload.count, from: &iterator, carry: &carry)
        #expect(echoed == payload)
        #expect(server.record.snapshot.received == payload.count)
        client.close()
        await server.stop()
    }

    @Test("IPv6 loopback")
    func ipv6() async throws {
        let server = try TestServer(configure: { $0.host = "::1" })
        let client = try await AsyncTLSConnection.connect(
            host: "::1", port: server.port, context: try TestCertificates.shared.clientContext(), on: server.group.next()
        )
        client.write([9])
        var iterator = client.inbound.makeAsyncIterator()
        var carry: [UInt8] = []
        #expect(try await AsyncTLSConnection.read(exactly: 1, from: &iterator, carry: &carry) == [9])
        client.close()
        await server.stop()
    }

    @Test("client-initiated renegotiation is refused")
    func renegotiationRefused() async throws {
        let server = try TestServer()
        let port = server.port
        let caPath = TestCertificates.shared.caPath
        let (echoed, renegotiated) = try await onOwnThread { () throws -> ([UInt8]?, Bool) in
            let client = try BlockingTLSClient(port: port, caPath: caPath, tls12Only: true)
            let echoed = client.write([7]) ? client.read(upTo: 1) : nil
            return (echoed, client.renegotiate())
        }
        #expect(echoed == [7])
        #expect(renegotiated == false)
        await server.stop()
    }

    @Test("close_notify from the client is seen as a clean close")
    func closeNotifyFromClient() async throws {
        let server = try TestServer()
        let client = try await AsyncTLSConnection.connect(
            host: "127.0.0.1", port: server.port, context: try TestCertificates.shared.clientContext(), on: server.group.next()
        )
        client.close(graceful: true)
        #expect(await eventually { server.record.snapshot.closed == [.closedByPeer] })
        #expect(await client.waitUntilClosed(timeout: .seconds(5)) == .closedLocally)
        await server.stop()
    }

    @Test("close_notify from the server ends the client's stream cleanly")
    func closeNotifyFromServer() async throws {
        final class CloseAfterFirstByte: ConnectionHandler {
            func connectionActive(_ connection: TLSConnection, info: ConnectionInfo) {}
            func bytesReceived(_ bytes: UnsafeRawBufferPointer, on connection: TLSConnection) {
                connection.write(Array(bytes))
                connection.close(graceful: true)
            }
            func connectionClosed(_ reason: CloseReason, on connection: TLSConnection) {}
        }
        let server = try TestServer(handler: { _ in CloseAfterFirstByte() })
        let client = try await AsyncTLSConnection.connect(
            host: "127.0.0.1", port: server.port, context: try TestCertificates.shared.clientContext(), on: server.group.next()
        )
        client.write([1, 2])
        var received: [UInt8] = []
        for try await chunk in client.inbound { received += chunk }
        #expect(received == [1, 2])
        #expect(await client.waitUntilClosed(timeout: .seconds(5)) == .closedByPeer)
        await server.stop()
    }

    @Test("an abrupt TCP close without close_notify is reported as such")
    func abruptClose() async throws {
        let server = try TestServer()
        let port = server.port
        let caPath = TestCertificates.shared.caPath
        let echoed = try await onOwnThread { () throws -> [UInt8]? in
            let client = try BlockingTLSClient(port: port, caPath: caPath)
            let echoed = client.write([5]) ? client.read(upTo: 1) : nil
            client.abort()
            return echoed
        }
        #expect(echoed == [5])
        #expect(await eventually {
            let closed = server.record.snapshot.closed
            if closed.count != 1 { return false }
            if case .peerClosedAbruptly = closed[0] { return true }
            if case .ioError = closed[0] { return true }
            return false
        })
        await server.stop()
    }
}
