import Foundation
import GatewayTestKit
@testable import GatewayTransport
import Testing

/// A reader that reconnects resumes its TLS 1.3 session from a ticket (PSK with ECDHE) instead
/// of a full handshake with its certificate: on the replica that issued the ticket, and on any
/// replica given the same ticket keys. Real sockets, real OpenSSL on both sides.
@Suite("Readers resume their TLS session on reconnect")
struct SessionResumptionTests {
    static let keyA: [UInt8] = (0..<80).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 1) }
    static let keyB: [UInt8] = (0..<80).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ 5) }

    private func server(keys: [[UInt8]]?, lifetime: Duration = .seconds(3600)) throws -> TestServer {
        let ticketKeys = try keys.map { try TLSTicketKeys(keys: $0) }
        return try TestServer(configure: {
            $0.clientAuthentication = .required(trustedCAPath: TestCertificates.shared.caPath)
            $0.ticketKeys = ticketKeys
            $0.ticketLifetime = lifetime
        })
    }

    /// Connects with the reader's certificate, round-trips a byte, waits for the server's ticket
    /// to be kept and closes; returns the client's view of the handshake.
    private func attachKeepingSession(
        to server: TestServer, sessions: TLSSessionCache, certificate: CertificateKeyPair = TestCertificates.shared.readerClient,
        graceful: Bool = true
    ) async throws -> ConnectionInfo {
        let context = try TestCertificates.shared.clientContext(certificate: certificate)
        let before = sessions.current
        let client = try await AsyncTLSConnection.connect(host: "127.0.0.1", port: server.port, context: context, sessions: sessions, on: server.group.next())
        client.write([42])
        var iterator = client.inbound.makeAsyncIterator()
        var carry: [UInt8] = []
        #expect(try await AsyncTLSConnection.read(exactly: 1, from: &iterator, carry: &carry) == [42])
        #expect(await eventually { sessions.current.map { $0 !== before } ?? false }, "the server's new session ticket was kept")
        client.close(graceful: graceful)
        #expect(await client.waitUntilClosed(timeout: outcomeDeadline) != nil)
        return client.info
    }

    @Test("the next connects resume (both sides say so), also after a link that ended without close_notify, and are the same reader; the statistics count them")
    func resumesOnTheSameServer() async throws {
        let server = try server(keys: [Self.keyA])
        let sessions = TLSSessionCache()
        let first = try await attachKeepingSession(to: server, sessions: sessions)
        // Ended without a close_notify from the reader's side, as when its server dies: OpenSSL
        // marks that connection's own session not resumable; the kept copy still resumes.
        let second = try await attachKeepingSession(to: server, sessions: sessions, graceful: false)
        let third = try await attachKeepingSession(to: server, sessions: sessions)
        #expect(!first.resumed)
        #expect(second.resumed)
        #expect(third.resumed)
        #expect(second.tlsVersion == "TLSv1.3")
        let active = server.record.snapshot.active
        #expect(active.map(\.resumed) == [false, true, true])
        #expect(active.map(\.verifiedClientIdentity) == ["WSC513-0001", "WSC513-0001", "WSC513-0001"])
        let statistics = server.server.statistics
        #expect(statistics.handshakesWithCertificate == 3)
        #expect(statistics.handshakesResumedWithCertificate == 2)
        #expect(statistics.handshakesResumedWithoutCertificate == 0)
        await server.stop()
    }

    @Test("a ticket from one server resumes on another with the same key, and on one that keeps it as the previous key")
    func resumesAcrossServersSharingTheKey() async throws {
        let issuer = try server(keys: [Self.keyA])
        let sibling = try server(keys: [Self.keyA])
        let rotated = try server(keys: [Self.keyB, Self.keyA])
        let sessions = TLSSessionCache()
        #expect(try await attachKeepingSession(to: issuer, sessions: sessions).resumed == false)
        let onSibling = try await attachKeepingSession(to: sibling, sessions: sessions)
        #expect(onSibling.resumed)
        // The sibling issued its new ticket under key A too; the rotated server still takes it
        // (key A is its previous key) and renews it under key B.
        #expect(try await attachKeepingSession(to: rotated, sessions: sessions).resumed)
        #expect(sibling.record.snapshot.active.map(\.verifiedClientIdentity) == ["WSC513-0001"])
        #expect(rotated.record.snapshot.active.map(\.verifiedClientIdentity) == ["WSC513-0001"])
        #expect(sibling.server.statistics.handshakesResumedWithCertificate == 1)
        #expect(rotated.server.statistics.handshakesResumedWithCertificate == 1)
        await issuer.stop()
        await sibling.stop()
        await rotated.stop()
    }

    @Test("a ticket under another key, or older than the lifetime, is refused: a full handshake, which still succeeds")
    func refusedTicketsFallBackToAFullHandshake() async throws {
        let issuer = try server(keys: [Self.keyA])
        let stranger = try server(keys: [Self.keyB])
        let ownKeys = try server(keys: nil)
        // A lifetime of 0 s: every ticket is older than that.
        let strict = try server(keys: [Self.keyA], lifetime: .zero)
        let sessions = TLSSessionCache()
        _ = try await attachKeepingSession(to: issuer, sessions: sessions)
        let keyA = sessions.current
        for other in [stranger, ownKeys, strict] {
            sessions.replace(with: keyA)
            let info = try await attachKeepingSession(to: other, sessions: sessions)
            #expect(!info.resumed)
            #expect(other.record.snapshot.active.map(\.verifiedClientIdentity) == ["WSC513-0001"])
            let statistics = other.server.statistics
            #expect(statistics.handshakesWithCertificate == 1)
            #expect(statistics.handshakesResumedWithCertificate == 0)
        }
        for server in [issuer, stranger, ownKeys, strict] { await server.stop() }
    }

    @Test("a reader whose certificate expired since its ticket was issued does not resume: the full handshake refuses it")
    func expiredCertificateDoesNotResume() async throws {
        let certificates = TestCertificates.shared
        var request = CertificateRequest(commonName: "reader WSC513-0077", subjectSerialNumber: "WSC513-0077", usage: .client)
        // Valid long enough for the first handshake on a loaded machine, short enough to wait out.
        request.notAfter = .seconds(8)
        let shortLived = try certificates.authority.issue(request, writingTo: certificates.directory, name: "reader-short-lived")
        let server = try server(keys: [Self.keyA])
        let sessions = TLSSessionCache()
        _ = try await attachKeepingSession(to: server, sessions: sessions, certificate: shortLived)
        // Wait for the certificate's end of validity to pass (a condition on the clock, not a sleep).
        let expiry = Date().addingTimeInterval(8)
        #expect(await eventually(timeout: .seconds(20)) { Date() > expiry.addingTimeInterval(1) })
        let context = try certificates.clientContext(certificate: shortLived)
        // In TLS 1.3 the client's handshake is over before the server verifies its certificate:
        // the refusal may come as a failed connect or as the connection's end right after.
        if let client = try? await AsyncTLSConnection.connect(host: "127.0.0.1", port: server.port, context: context, sessions: sessions, on: server.group.next()) {
            #expect(!client.info.resumed)
            #expect(await client.waitUntilClosed(timeout: outcomeDeadline) != nil)
        }
        #expect(await eventually { server.server.statistics.handshakeFailures[.certificate] == 1 })
        #expect(server.server.statistics.handshakesWithCertificate == 1)
        #expect(server.server.statistics.handshakesResumedWithCertificate == 0)
        await server.stop()
    }

    @Test("ticket key files: 80 bytes or their base64; anything else is refused with the command that makes one")
    func keyFiles() throws {
        let directory = TestCertificates.shared.directory
        let raw = directory + "/ticket-raw.key"
        let text = directory + "/ticket-base64.key"
        let short = directory + "/ticket-short.key"
        #expect(FileManager.default.createFile(atPath: raw, contents: Data(Self.keyA)))
        #expect(FileManager.default.createFile(atPath: text, contents: Data((Data(Self.keyB).base64EncodedString() + "\n").utf8)))
        #expect(FileManager.default.createFile(atPath: short, contents: Data(Self.keyA.prefix(48))))
        #expect(try TLSTicketKeys.load(paths: [raw, text]).keys == [Self.keyA, Self.keyB])
        #expect(throws: TransportError.self) { try TLSTicketKeys.load(paths: [short]) }
        #expect(throws: TransportError.self) { try TLSTicketKeys.load(paths: [directory + "/missing.key"]) }
        #expect(throws: TransportError.self) { try TLSTicketKeys(keys: [Self.keyA, Self.keyA]) }
        do {
            _ = try TLSTicketKeys.load(paths: [short])
        } catch {
            #expect("\(error)".contains("openssl rand 80"))
        }
    }
}
