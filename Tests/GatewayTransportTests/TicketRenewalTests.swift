import CGatewayOpenSSL
import Foundation
import GatewayTestKit
@testable import GatewayTransport
import Testing

/// A reader's link lasts longer than a ticket's lifetime: the server sends it a fresh ticket on
/// the first record after half the lifetime has passed since the last one, so a reader whose
/// replica dies after days still resumes. The clock is not waited on: the server's tickets are
/// aged with ``TLSServer/ageSessionTickets(by:)``. Real sockets, real OpenSSL on both sides.
@Suite("Long-lived reader links renew their session ticket")
struct TicketRenewalTests {
    static let key: [UInt8] = (0..<80).map { UInt8(truncatingIfNeeded: $0 &* 11 &+ 3) }
    static let lifetime: Duration = .seconds(3600)

    private func server(
        clientAuthentication: (String) -> ClientAuthentication = { .required(trustedCAPath: $0) },
        lifetime: Duration = Self.lifetime,
        handler: @escaping @Sendable (ServerRecord) -> any ConnectionHandler = { EchoHandler(record: $0) }
    ) throws -> TestServer {
        let keys = try TLSTicketKeys(keys: [Self.key])
        return try TestServer(configure: {
            $0.clientAuthentication = clientAuthentication(TestCertificates.shared.caPath)
            $0.ticketKeys = keys
            $0.ticketLifetime = lifetime
        }, handler: handler)
    }

    /// A link that echoes: `send` writes one byte and returns once its echo came back. The
    /// server writes a renewed ticket ahead of the echo, and the client reads records in order,
    /// so a ticket issued for that record has been received (and kept) when `send` returns.
    private struct Link {
        let client: AsyncTLSConnection
        var iterator: AsyncThrowingStream<[UInt8], any Error>.AsyncIterator
        var carry: [UInt8] = []

        mutating func send(_ byte: UInt8) async throws {
            client.write([byte])
            #expect(try await AsyncTLSConnection.read(exactly: 1, from: &iterator, carry: &carry) == [byte])
        }
    }

    private func attach(to server: TestServer, sessions: TLSSessionCache, certificate: CertificateKeyPair?) async throws -> Link {
        let context = try TestCertificates.shared.clientContext(certificate: certificate)
        let client = try await AsyncTLSConnection.connect(host: "127.0.0.1", port: server.port, context: context, sessions: sessions, on: server.group.next())
        var link = Link(client: client, iterator: client.inbound.makeAsyncIterator())
        try await link.send(1)
        return link
    }

    @Test("a link whose last ticket is older than half the lifetime gets a new one on its next record, which resumes; a young link gets none")
    func oldLinkRenewsAndTheNewTicketResumes() async throws {
        let server = try server()
        let sessions = TLSSessionCache()
        var link = try await attach(to: server, sessions: sessions, certificate: TestCertificates.shared.readerClient)
        // A full handshake issues two tickets (sent right after it).
        #expect(await eventually { sessions.ticketsReceived == 2 })
        let issuedAtHandshake = sessions.current

        // A quarter of the lifetime on: young, no ticket.
        await server.server.ageSessionTickets(by: Self.lifetime / 4)
        try await link.send(2)
        #expect(sessions.ticketsReceived == 2)
        #expect(server.server.statistics.ticketsRenewed == 0)

        // Half the lifetime on: the next record brings a ticket, once.
        await server.server.ageSessionTickets(by: Self.lifetime / 4)
        try await link.send(3)
        #expect(sessions.ticketsReceived == 3)
        #expect(sessions.current !== issuedAtHandshake)
        #expect(server.server.statistics.ticketsRenewed == 1)
        try await link.send(4)
        try await link.send(5)
        #expect(sessions.ticketsReceived == 3)
        #expect(server.server.ticketsRenewedCount == 1)

        // Half a lifetime after the renewal: the next one.
        await server.server.ageSessionTickets(by: Self.lifetime / 2)
        try await link.send(6)
        #expect(sessions.ticketsReceived == 4)
        #expect(server.server.ticketsRenewedCount == 2)
        let renewed = sessions.current

        // The server's replica dies (no close_notify from the reader): the renewed ticket resumes.
        link.client.close(graceful: false)
        #expect(await link.client.waitUntilClosed(timeout: outcomeDeadline) != nil)
        let again = try await attach(to: server, sessions: sessions, certificate: TestCertificates.shared.readerClient)
        #expect(again.client.info.resumed)
        #expect(renewed !== issuedAtHandshake)
        #expect(server.record.snapshot.active.map(\.resumed) == [false, true])
        #expect(server.record.snapshot.active.map(\.verifiedClientIdentity) == ["WSC513-0001", "WSC513-0001"])
        #expect(server.server.statistics.handshakesResumedWithCertificate == 1)
        again.client.close(graceful: true)
        #expect(await again.client.waitUntilClosed(timeout: outcomeDeadline) != nil)
        await server.stop()
    }

    @Test("a renewed ticket carries its own issue time, not the handshake's, and resumes")
    func renewedTicketCarriesAFreshIssueTime() async throws {
        // The decrypt callback refuses a ticket issued a lifetime ago or more (tested with a
        // lifetime of 0 in SessionResumptionTests), so a renewed ticket must be dated when it is
        // issued. Only a lower bound on the clock is waited for (a condition, not a sleep): the
        // handshake's second has passed before the renewal is made due.
        let server = try server()
        let sessions = TLSSessionCache()
        var link = try await attach(to: server, sessions: sessions, certificate: TestCertificates.shared.readerClient)
        let handshakeTicket = try #require(sessions.current)
        let issuedAtHandshake = SSL_SESSION_get_time(handshakeTicket.pointer)
        #expect(await eventually(timeout: .seconds(10)) { time(nil) >= issuedAtHandshake + 2 })
        let received = sessions.ticketsReceived
        await server.server.ageSessionTickets(by: Self.lifetime / 2)
        try await link.send(2)
        #expect(sessions.ticketsReceived == received + 1)
        let renewed = try #require(sessions.current)
        #expect(renewed !== handshakeTicket)
        #expect(SSL_SESSION_get_time(renewed.pointer) >= issuedAtHandshake + 2)
        link.client.close(graceful: false)
        #expect(await link.client.waitUntilClosed(timeout: outcomeDeadline) != nil)

        let again = try await attach(to: server, sessions: sessions, certificate: TestCertificates.shared.readerClient)
        #expect(again.client.info.resumed)
        #expect(server.record.snapshot.active.map(\.resumed) == [false, true])
        again.client.close(graceful: true)
        #expect(await again.client.waitUntilClosed(timeout: outcomeDeadline) != nil)
        await server.stop()
    }

    @Test("the ticket goes out at once even when the server writes nothing back")
    func ticketIsWrittenWithoutApplicationData() async throws {
        let server = try server(handler: { EchoHandler(record: $0, echoes: false) })
        let sessions = TLSSessionCache()
        let context = try TestCertificates.shared.clientContext(certificate: TestCertificates.shared.readerClient)
        let client = try await AsyncTLSConnection.connect(host: "127.0.0.1", port: server.port, context: context, sessions: sessions, on: server.group.next())
        #expect(await eventually { sessions.ticketsReceived == 2 })
        await server.server.ageSessionTickets(by: Self.lifetime)
        client.write([7])
        #expect(await eventually { server.record.snapshot.received == 1 })
        #expect(await eventually { sessions.ticketsReceived == 3 }, "the renewed ticket reached the client with no reply to carry it")
        #expect(server.server.ticketsRenewedCount == 1)
        client.close(graceful: true)
        #expect(await client.waitUntilClosed(timeout: outcomeDeadline) != nil)
        await server.stop()
    }

    @Test("issuing a ticket takes the record buffers again; the idle sweep releases them as after any record")
    func renewalLeavesNoBuffersHeld() async throws {
        let server = try server()
        let sessions = TLSSessionCache()
        var link = try await attach(to: server, sessions: sessions, certificate: TestCertificates.shared.readerClient)
        #expect(await eventually { sessions.ticketsReceived == 2 })
        await server.server.sweepIdleBuffers(asIfQuietFor: .seconds(1))
        let releasedBefore = server.server.buffersReleasedCount
        #expect(releasedBefore >= 1)

        await server.server.ageSessionTickets(by: Self.lifetime)
        try await link.send(2)
        #expect(server.server.ticketsRenewedCount == 1)
        await server.server.sweepIdleBuffers(asIfQuietFor: .seconds(1))
        // Released once more (by this sweep, or by the sweep's own timer just before it).
        #expect(server.server.buffersReleasedCount == releasedBefore + 1)
        #expect(sessions.ticketsReceived == 3)
        link.client.close(graceful: true)
        #expect(await link.client.waitUntilClosed(timeout: outcomeDeadline) != nil)
        await server.stop()
    }

    @Test("a lane (no client certificate) never gets a renewed ticket, however old its link; a reader beside it does")
    func laneGetsNone() async throws {
        let server = try server(clientAuthentication: { .optional(trustedCAPath: $0) })
        let laneSessions = TLSSessionCache()
        let readerSessions = TLSSessionCache()
        var lane = try await attach(to: server, sessions: laneSessions, certificate: nil)
        var reader = try await attach(to: server, sessions: readerSessions, certificate: TestCertificates.shared.readerClient)
        #expect(await eventually { laneSessions.ticketsReceived == 2 && readerSessions.ticketsReceived == 2 })

        await server.server.ageSessionTickets(by: Self.lifetime * 2)
        try await lane.send(2)
        try await lane.send(3)
        #expect(laneSessions.ticketsReceived == 2)
        #expect(server.server.ticketsRenewedCount == 0)
        try await reader.send(2)
        #expect(readerSessions.ticketsReceived == 3)
        #expect(server.server.ticketsRenewedCount == 1)
        for link in [lane, reader] {
            link.client.close(graceful: true)
            #expect(await link.client.waitUntilClosed(timeout: outcomeDeadline) != nil)
        }
        await server.stop()
    }
}
