import Foundation
import GatewayTestKit
@testable import GatewayTransport
import Synchronization
import Testing

/// Whether each accepted connection still held its client's certificate when it became active.
final class HeldCertificates: Sendable {
    private let flags = Mutex<[Bool]>([])
    func add(_ held: Bool) { flags.withLock { $0.append(held) } }
    var all: [Bool] { flags.withLock { $0 } }
}

/// The echo handler, recording whether each connection holds its client's certificate.
final class CertificateRecordingHandler: ConnectionHandler {
    let echo: EchoHandler
    let held: HeldCertificates
    init(record: ServerRecord, held: HeldCertificates) {
        self.echo = EchoHandler(record: record)
        self.held = held
    }

    func connectionActive(_ connection: TLSConnection, info: ConnectionInfo) {
        held.add(connection.holdsPeerCertificate)
        echo.connectionActive(connection, info: info)
    }

    func bytesReceived(_ bytes: UnsafeRawBufferPointer, on connection: TLSConnection) { echo.bytesReceived(bytes, on: connection) }
    func connectionClosed(_ reason: CloseReason, on connection: TLSConnection) { echo.connectionClosed(reason, on: connection) }
}

/// A session ticket carries the reader's identity and its certificate's expiry, not the
/// certificate: decoding the certificate from every ticket (its public key through OpenSSL
/// 3.0's decoders) was a third of a resumed handshake.
@Suite("Session tickets carry the reader's identity, not its certificate")
struct TicketIdentityTests {
    static let key: [UInt8] = (0..<80).map { UInt8(truncatingIfNeeded: $0 &* 11 &+ 3) }

    @Test("first and resumed connections prove the same identity and hold no certificate once the ticket is out; a second server with the key resumes it too")
    func identityWithoutCertificate() async throws {
        let held = HeldCertificates()
        let configure: (inout TLSServerConfiguration) -> Void = {
            $0.clientAuthentication = .required(trustedCAPath: TestCertificates.shared.caPath)
            $0.ticketKeys = try? TLSTicketKeys(keys: [Self.key])
        }
        let first = try TestServer(configure: configure, handler: { CertificateRecordingHandler(record: $0, held: held) })
        let second = try TestServer(configure: configure, handler: { CertificateRecordingHandler(record: $0, held: held) })
        let sessions = TLSSessionCache()
        let context = try TestCertificates.shared.clientContext(certificate: TestCertificates.shared.readerClient)
        for server in [first, first, second] {
            let before = sessions.current
            let client = try await AsyncTLSConnection.connect(host: "127.0.0.1", port: server.port, context: context, sessions: sessions, on: server.group.next())
            client.write([7])
            var iterator = client.inbound.makeAsyncIterator()
            var carry: [UInt8] = []
            #expect(try await AsyncTLSConnection.read(exactly: 1, from: &iterator, carry: &carry) == [7])
            #expect(await eventually { sessions.current.map { $0 !== before } ?? false }, "the server's ticket was kept")
            client.close(graceful: true)
            #expect(await client.waitUntilClosed(timeout: outcomeDeadline) != nil)
        }
        let active = first.record.snapshot.active + second.record.snapshot.active
        #expect(active.map(\.resumed) == [false, true, true])
        #expect(active.map(\.verifiedClientIdentity) == ["WSC513-0001", "WSC513-0001", "WSC513-0001"])
        #expect(held.all == [false, false, false], "a server connection kept its client's certificate: \(held.all)")
        #expect(first.server.statistics.handshakesWithCertificate == 2)
        #expect(first.server.statistics.handshakesResumedWithCertificate == 1)
        #expect(second.server.statistics.handshakesResumedWithCertificate == 1)
        await first.stop()
        await second.stop()
    }
}
