import GatewayTestKit
import GatewayTransport
import GatewayWire
import Testing

/// A reader that re-attaches with its TLS session ticket resumes (no certificate exchange), is
/// the same reader, and passes the registration check at attach like any other: a reader
/// deleted meanwhile is not let back in by its ticket. Real gateway, PostgreSQL and TLS.
@Suite("reader TLS session resumption")
struct ReaderSessionResumptionTests {
    typealias Admin = ReaderGatewayV1.FleetAdmin

    @Test func aReaderResumesAsItselfAndADeletedOneIsNotLetBackInByItsTicket() async throws {
        try await GatewayHarness.start().run { harness in
            let admin = try await harness.admin()
            let location = try await admin.createLocation("Resume")
            let serial = "WSC1000351"
            let registered = try await admin.registerSerials([serial], prefix: "Till", location: location)
            let certificate = try harness.readerCertificate(serial: serial)
            let sessions = TLSSessionCache()

            let first = try await TestReader.attach(harness, serial: serial, certificate: certificate, sessions: sessions)
            #expect(await first.waitUntilRegistered()?.readerID == registered[0].id)
            #expect(!first.channel.tls.info.resumed)
            #expect(await eventually { sessions.hasSession }, "the gateway sent no session ticket")
            first.channel.close()

            let second = try await TestReader.attach(harness, serial: serial, certificate: certificate, sessions: sessions)
            #expect(second.channel.tls.info.resumed)
            #expect(await second.waitUntilRegistered()?.readerID == registered[0].id)
            _ = await TransportMetricsTests.metricsText(of: harness, containing: [
                #"reader_gateway_tls_handshakes_resumed_total{kind="reader"} 1"#,
                #"reader_gateway_tls_handshakes_total{kind="reader",result="success"} 2"#,
            ])
            second.channel.close()

            var delete = ReaderGatewayV1.DeleteReaderRequest()
            delete.readerID = registered[0].id
            _ = try await admin.call(Admin.deleteReader, delete)
            let third = try await TestReader.attach(harness, serial: serial, certificate: certificate, sessions: sessions)
            #expect(third.channel.tls.info.resumed)
            // The resumed session still proves the serial, but the reader is no longer
            // registered: it gets a registration code, as after a full handshake.
            #expect(await third.waitForCode() != nil)
            #expect(third.registrations.allSatisfy { !$0.registered })
            _ = await TransportMetricsTests.metricsText(of: harness, containing: [#"reader_gateway_tls_handshakes_resumed_total{kind="reader"} 2"#])
            third.channel.close()
        }
    }

    @Test func aLinkOlderThanHalfTheTicketLifetimeGetsAFreshTicketWithItsNextHeartbeatAndResumesWithIt() async throws {
        try await GatewayHarness.start().run { harness in
            let admin = try await harness.admin()
            let location = try await admin.createLocation("Renew")
            let serial = "WSC1000352"
            let registered = try await admin.registerSerials([serial], prefix: "Till", location: location)
            let certificate = try harness.readerCertificate(serial: serial)
            let sessions = TLSSessionCache()

            let first = try await TestReader.attach(harness, serial: serial, certificate: certificate, sessions: sessions)
            #expect(await first.waitUntilRegistered()?.readerID == registered[0].id)
            #expect(await eventually { sessions.hasSession }, "the gateway sent no session ticket")
            // One ticket per handshake (the public listener's setting).
            let atHandshake = sessions.ticketsReceived
            #expect(atHandshake == 1)
            // 13 hours on, past half the default lifetime of 24 h: the next heartbeat brings a ticket.
            try await harness.ageSessionTickets(by: .seconds(13 * 3600))
            #expect(await eventually { sessions.ticketsReceived == atHandshake + 1 }, "no ticket renewed with the heartbeats")
            _ = await TransportMetricsTests.metricsText(of: harness, containing: ["reader_gateway_tls_tickets_renewed_total 1"])
            first.disconnect()

            let second = try await TestReader.attach(harness, serial: serial, certificate: certificate, sessions: sessions)
            #expect(second.channel.tls.info.resumed)
            #expect(await second.waitUntilRegistered()?.readerID == registered[0].id)
            second.channel.close()
        }
    }
}
