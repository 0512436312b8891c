import GatewayTestKit
@testable import GatewayTransport
import Synchronization
import Testing

/// What each accepted connection held of its client's chain when it became active.
final class HeldChains: Sendable {
    private let counts = Mutex<[Int]>([])
    func add(_ count: Int) { counts.withLock { $0.append(count) } }
    var all: [Int] { counts.withLock { $0 } }
}

/// The echo handler, recording how many of the client's other certificates each connection holds.
final class ChainRecordingHandler: ConnectionHandler {
    let echo: EchoHandler
    let held: HeldChains
    init(record: ServerRecord, held: HeldChains) {
        self.echo = EchoHandler(record: record)
        self.held = held
    }

    func connectionActive(_ connection: TLSConnection, info: ConnectionInfo) {
        held.add(connection.peerChainCertificatesHeld)
        echo.connectionActive(connection, info: info)
    }

    func bytesReceived(_ bytes: UnsafeRawBufferPointer, on connection: TLSConnection) { echo.bytesReceived(bytes, on: connection) }
    func connectionClosed(_ reason: CloseReason, on connection: TLSConnection) { echo.connectionClosed(reason, on: connection) }
}

@Suite("Reader connections release the chain their client sent once it is verified")
struct ClientChainReleaseTests {
    /// A reader certificate issued by an intermediate CA, its file holding the leaf, the
    /// intermediate and the root (what a client that sends its whole chain sends); the server
    /// trusts only the root, so the intermediate it is sent is needed to verify the reader.
    static let chainedReader: CertificateKeyPair = {
        let certificates = TestCertificates.shared
        do {
            let intermediate = try certificates.authority.issueIntermediate(commonName: "Test reader intermediate")
            return try intermediate.issue(
                CertificateRequest(commonName: "reader WSC513-0042", subjectSerialNumber: "WSC513-0042", usage: .client),
                chain: [intermediate.certificate, certificates.authority.certificate],
                writingTo: certificates.directory, name: "reader-chained"
            )
        } catch { fatalError("could not mint the chained reader certificate: \(error)") }
    }()

    private func server(held: HeldChains) throws -> TestServer {
        try TestServer(
            configure: { $0.clientAuthentication = .required(trustedCAPath: TestCertificates.shared.caPath) },
            handler: { ChainRecordingHandler(record: $0, held: held) }
        )
    }

    @Test("TLS 1.2 and 1.3: verified through the intermediate it sent, identity handed up, only its own certificate kept, data both ways, close_notify", arguments: [false, true])
    func chainSent(tls12Only: Bool) async throws {
        let held = HeldChains()
        let server = try server(held: held)
        let port = server.port
        let (echoed, closed) = try await onOwnThread { () throws -> ([UInt8]?, Bool) in
            let client = try BlockingTLSClient(port: port, caPath: TestCertificates.shared.caPath, tls12Only: tls12Only, certificate: Self.chainedReader)
            guard client.write([1, 2, 3]) else { return (nil, false) }
            let echoed = client.read(upTo: 3)
            return (echoed, client.closeNotify())
        }
        #expect(echoed == [1, 2, 3])
        #expect(closed)
        let active = server.record.snapshot.active
        #expect(active.map(\.verifiedClientIdentity) == ["WSC513-0042"])
        #expect(active.map(\.tlsVersion) == [tls12Only ? "TLSv1.2" : "TLSv1.3"])
        #expect(held.all == [0])
        #expect(await eventually { server.record.snapshot.closed == [.closedByPeer] })
        await server.stop()
    }

    @Test("TLS 1.3 key update both ways after the chain was released")
    func keyUpdate() async throws {
        let held = HeldChains()
        let server = try server(held: held)
        let port = server.port
        let rounds = try await onOwnThread { () throws -> [[UInt8]?] in
            let client = try BlockingTLSClient(port: port, caPath: TestCertificates.shared.caPath, certificate: Self.chainedReader)
            var rounds: [[UInt8]?] = []
            for byte in UInt8(1)...3 {
                guard client.requestKeyUpdate(), client.write([byte]) else { return rounds }
                rounds.append(client.read(upTo: 1))
            }
            return rounds
        }
        #expect(rounds == [[1], [2], [3]])
        #expect(held.all == [0])
        #expect(server.record.snapshot.active.map(\.verifiedClientIdentity) == ["WSC513-0042"])
        await server.stop()
    }

    @Test("the gateway's own client (which sends the root with its certificate) attaches with its identity; nothing else is kept")
    func gatewayClient() async throws {
        let held = HeldChains()
        let server = try server(held: held)
        let certificates = TestCertificates.shared
        let client = try await AsyncTLSConnection.connect(
            host: "127.0.0.1", port: server.port,
            context: try certificates.clientContext(certificate: certificates.readerClient), on: server.group.next()
        )
        client.write([7])
        var iterator = client.inbound.makeAsyncIterator()
        var carry: [UInt8] = []
        #expect(try await AsyncTLSConnection.read(exactly: 1, from: &iterator, carry: &carry) == [7])
        #expect(server.record.snapshot.active.map(\.verifiedClientIdentity) == ["WSC513-0001"])
        #expect(held.all == [0])
        client.close()
        #expect(await eventually { server.record.snapshot.closed.count == 1 })
        await server.stop()
    }

    @Test("a reader whose intermediate is missing is still refused")
    func intermediateMissing() async throws {
        let held = HeldChains()
        let server = try server(held: held)
        let certificates = TestCertificates.shared
        let intermediate = try certificates.authority.issueIntermediate(commonName: "Unsent intermediate")
        let leafOnly = try intermediate.issue(
            CertificateRequest(commonName: "reader WSC513-0043", subjectSerialNumber: "WSC513-0043", usage: .client),
            writingTo: certificates.directory, name: "reader-leaf-only"
        )
        let port = server.port
        let echoed = await onOwnThread { () -> [UInt8]? in
            // TLS 1.2: the client learns the verdict in its handshake.
            guard let client = try? BlockingTLSClient(port: port, caPath: certificates.caPath, tls12Only: true, certificate: leafOnly) else { return nil }
            _ = client.write([1])
            return client.read(upTo: 1)
        }
        #expect(echoed == nil)
        #expect(server.record.snapshot.active.isEmpty)
        #expect(held.all.isEmpty)
        await server.stop()
    }
}
