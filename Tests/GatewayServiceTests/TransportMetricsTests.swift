import Foundation
import GatewayOperations
import GatewayTestKit
import GatewayTransport
import Testing
@testable import GatewayService

/// The connection and handshake metrics of a real gateway, as `/metrics` renders them: the TLS
/// port's own counts, read at each scrape.
@Suite("transport metrics")
struct TransportMetricsTests {
    @Test func aReaderALaneAndAForeignCertificateAreCountedByKind() async throws {
        try await withHarness { harness in
            let lane = try await harness.channel()
            let reader = try await harness.channel(certificate: try harness.readerCertificate(serial: "WSC513-7001"))
            let foreign = try CertificateAuthority.create(commonName: "another CA")
            let stranger = try foreign.issue(
                CertificateRequest(commonName: "WSC513-7002", subjectSerialNumber: "WSC513-7002", usage: .client),
                writingTo: harness.directory, name: "foreign-reader"
            )
            // TLS 1.3: the client may finish its side before the gateway's verdict arrives.
            if let refused = try? await harness.channel(certificate: stranger) { refused.close() }

            let expected = [
                #"reader_gateway_connections_accepted_total{kind="reader"} 2"#,
                #"reader_gateway_connections_accepted_total{kind="lane"} 1"#,
                #"reader_gateway_tls_handshakes_total{kind="reader",result="success"} 1"#,
                #"reader_gateway_tls_handshakes_total{kind="lane",result="success"} 1"#,
                #"reader_gateway_tls_handshakes_total{kind="reader",result="failure"} 1"#,
                #"reader_gateway_tls_handshake_failures_total{kind="reader",reason="certificate"} 1"#,
                #"reader_gateway_connections{kind="reader",state="active"} 1"#,
                #"reader_gateway_connections{kind="lane",state="active"} 1"#,
                #"reader_gateway_connections{kind="reader",state="handshaking"} 0"#,
            ]
            var text = await Self.metricsText(of: harness, containing: expected)
            reader.close()
            lane.close()
            let closed = await eventually {
                text = harness.metrics.collection.render()
                return text.contains(#"reader_gateway_connections{kind="reader",state="active"} 0"# + "\n")
                    && text.contains(#"reader_gateway_connections{kind="lane",state="active"} 0"# + "\n")
            }
            #expect(closed, "connections still open in:\n\(text)")
        }
    }

    @Test func aReplicaDialingTheInternalListenerIsCountedAsAPeer() async throws {
        try await withHarness { harness in
            // The gateway's own replica link, dialing its own internal listener: real mutual TLS
            // with the cluster's internal CA, as another replica's would be.
            let opened = try #require(harness.host.opened)
            _ = try await opened.gateway.replicas.channel(to: opened.advertised)
            let expected = [
                #"reader_gateway_connections_accepted_total{kind="peer"} 1"#,
                #"reader_gateway_tls_handshakes_total{kind="peer",result="success"} 1"#,
                #"reader_gateway_connections{kind="peer",state="active"} 1"#,
            ]
            let text = await Self.metricsText(of: harness, containing: expected)
            // A peer is not a reader or a lane.
            #expect(text.contains(#"reader_gateway_connections_accepted_total{kind="reader"} 0"# + "\n"))
            #expect(text.contains(#"reader_gateway_connections_accepted_total{kind="lane"} 0"# + "\n"))
        }
    }

    /// The gateway's `/metrics` text once it has every line of `expected`; records the lines
    /// still missing when the wait ends without them.
    static func metricsText(of harness: GatewayHarness, containing expected: [String]) async -> String {
        var text = ""
        let counted = await eventually {
            text = harness.metrics.collection.render()
            return expected.allSatisfy { text.contains($0 + "\n") }
        }
        #expect(counted, "missing \(expected.filter { !text.contains($0 + "\n") }) in:\n\(text)")
        return text
    }

    private func withHarness(_ body: (GatewayHarness) async throws -> Void) async throws {
        try await GatewayHarness.start().run(body)
    }
}
