import GatewayOperations
import GatewayTransport
import Testing
@testable import GatewayService

/// How the listeners' statistics become the gateway's connection and handshake series: the public
/// listener's by certificate (reader) or none (lane), the internal listener's as peers.
@Suite("transport metrics mapping")
struct TransportMetricsMappingTests {
    private func statistics(
        accepted: Int, withCertificate: Int, withoutCertificate: Int, failures: [TLSHandshakeFailure: Int] = [:],
        handshaking: Int = 0, openWithCertificate: Int = 0, openWithoutCertificate: Int = 0, shuttingDown: Bool = false
    ) -> TLSServerStatistics {
        var statistics = TLSServerStatistics()
        statistics.accepted = accepted
        statistics.handshakesWithCertificate = withCertificate
        statistics.handshakesWithoutCertificate = withoutCertificate
        for reason in TLSHandshakeFailure.allCases { statistics.handshakeFailures[reason] = failures[reason] ?? 0 }
        statistics.handshaking = handshaking
        statistics.openWithCertificate = openWithCertificate
        statistics.openWithoutCertificate = openWithoutCertificate
        statistics.shuttingDown = shuttingDown
        return statistics
    }

    @Test func publicListenerByCertificateAndInternalListenerAsPeers() {
        let metrics = GatewayMetrics(includeProcessMetrics: false)
        let server = statistics(
            accepted: 20, withCertificate: 9, withoutCertificate: 6, failures: [.timeout: 2, .protocol: 1],
            handshaking: 2, openWithCertificate: 8, openWithoutCertificate: 5
        )
        let replicas = statistics(accepted: 4, withCertificate: 3, withoutCertificate: 0, failures: [.certificate: 1], openWithCertificate: 3)
        TransportMetrics.record(public: server, internal: replicas, into: metrics)

        // Accepted, once the handshake ended: lanes succeeded without a certificate; readers with
        // one, or failed (the 2 still handshaking are not counted yet).
        #expect(metrics.connectionsAccepted.labels(ConnectionKind.reader).value == 12)
        #expect(metrics.connectionsAccepted.labels(ConnectionKind.lane).value == 6)
        #expect(metrics.connectionsAccepted.labels(ConnectionKind.peer).value == 4)
        #expect(metrics.handshakes.labels(ConnectionKind.reader, HandshakeResult.success).value == 9)
        #expect(metrics.handshakes.labels(ConnectionKind.lane, HandshakeResult.success).value == 6)
        #expect(metrics.handshakes.labels(ConnectionKind.reader, HandshakeResult.failure).value == 3)
        #expect(metrics.handshakes.labels(ConnectionKind.lane, HandshakeResult.failure).value == 0)
        #expect(metrics.handshakes.labels(ConnectionKind.peer, HandshakeResult.success).value == 3)
        #expect(metrics.handshakes.labels(ConnectionKind.peer, HandshakeResult.failure).value == 1)
        #expect(metrics.handshakeFailures.labels(ConnectionKind.reader, HandshakeFailureReason.timeout).value == 2)
        #expect(metrics.handshakeFailures.labels(ConnectionKind.reader, HandshakeFailureReason.protocol).value == 1)
        #expect(metrics.handshakeFailures.labels(ConnectionKind.peer, HandshakeFailureReason.certificate).value == 1)
        #expect(metrics.connections.labels(ConnectionKind.reader, ConnectionState.handshaking).value == 2)
        #expect(metrics.connections.labels(ConnectionKind.reader, ConnectionState.active).value == 8)
        #expect(metrics.connections.labels(ConnectionKind.lane, ConnectionState.active).value == 5)
        #expect(metrics.connections.labels(ConnectionKind.lane, ConnectionState.handshaking).value == 0)
        #expect(metrics.connections.labels(ConnectionKind.peer, ConnectionState.active).value == 3)
        #expect(metrics.connections.labels(ConnectionKind.reader, ConnectionState.draining).value == 0)
    }

    @Test func aLaneFinishingItsHandshakeTakesNothingBackFromTheReaders() {
        let metrics = GatewayMetrics(includeProcessMetrics: false)
        let idle = statistics(accepted: 0, withCertificate: 0, withoutCertificate: 0)
        let handshaking = statistics(accepted: 1, withCertificate: 0, withoutCertificate: 0, handshaking: 1)
        TransportMetrics.record(public: handshaking, internal: idle, into: metrics)
        #expect(metrics.connectionsAccepted.labels(ConnectionKind.reader).value == 0)
        #expect(metrics.connections.labels(ConnectionKind.reader, ConnectionState.handshaking).value == 1)
        TransportMetrics.record(public: statistics(accepted: 1, withCertificate: 0, withoutCertificate: 1, openWithoutCertificate: 1), internal: idle, into: metrics)
        #expect(metrics.connectionsAccepted.labels(ConnectionKind.reader).value == 0)
        #expect(metrics.connectionsAccepted.labels(ConnectionKind.lane).value == 1)
    }

    @Test func openConnectionsOfAListenerThatShutsDownAreDraining() {
        let metrics = GatewayMetrics(includeProcessMetrics: false)
        let server = statistics(accepted: 3, withCertificate: 2, withoutCertificate: 1, openWithCertificate: 2, openWithoutCertificate: 1, shuttingDown: true)
        TransportMetrics.record(public: server, internal: statistics(accepted: 0, withCertificate: 0, withoutCertificate: 0), into: metrics)
        #expect(metrics.connections.labels(ConnectionKind.reader, ConnectionState.draining).value == 2)
        #expect(metrics.connections.labels(ConnectionKind.lane, ConnectionState.draining).value == 1)
        #expect(metrics.connections.labels(ConnectionKind.reader, ConnectionState.active).value == 0)
        #expect(metrics.connections.labels(ConnectionKind.lane, ConnectionState.active).value == 0)
        #expect(metrics.connections.labels(ConnectionKind.peer, ConnectionState.draining).value == 0)
    }
}
