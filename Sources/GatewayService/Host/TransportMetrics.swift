import GatewayOperations
import GatewayTransport

/// Sets the connection and handshake metrics from the TLS listeners' own counts, at scrape time.
///
/// The public listener serves readers and lanes; the kind is known once the handshake succeeded
/// (a verified client certificate: a reader; none: a lane). Before that, and for a handshake that
/// failed, a public-listener connection is reported under `kind="reader"`. The internal listener
/// serves peers only. Open connections are `draining` once their listener shuts down.
///
/// A public connection is counted as accepted when its handshake ends, when its kind is known:
/// counted earlier, a lane would first count as a reader and then move, and a counter must never
/// go down. Connections still in their handshake are in `reader_gateway_connections{state="handshaking"}`.
enum TransportMetrics {
    static func record(public server: TLSServerStatistics, internal replicas: TLSServerStatistics, into metrics: GatewayMetrics) {
        let lanes = server.handshakesWithoutCertificate
        metrics.connectionsAccepted.labels(ConnectionKind.reader).set(total: UInt64(server.handshakesWithCertificate + server.handshakesFailed))
        metrics.connectionsAccepted.labels(ConnectionKind.lane).set(total: UInt64(lanes))
        metrics.handshakes.labels(ConnectionKind.reader, HandshakeResult.success).set(total: UInt64(server.handshakesWithCertificate))
        metrics.handshakes.labels(ConnectionKind.lane, HandshakeResult.success).set(total: UInt64(lanes))
        metrics.handshakesResumed.labels(ConnectionKind.reader).set(total: UInt64(server.handshakesResumedWithCertificate))
        metrics.handshakesResumed.labels(ConnectionKind.lane).set(total: UInt64(server.handshakesResumedWithoutCertificate))
        metrics.ticketsRenewed.unlabeled.set(total: UInt64(server.ticketsRenewed))
        recordFailures(server, kind: .reader, into: metrics)
        setOpen(.reader, handshaking: server.handshaking, open: server.openWithCertificate, draining: server.shuttingDown, into: metrics)
        setOpen(.lane, handshaking: 0, open: server.openWithoutCertificate, draining: server.shuttingDown, into: metrics)
        metrics.connectionsAccepted.labels(ConnectionKind.peer).set(total: UInt64(replicas.accepted))
        metrics.handshakes.labels(ConnectionKind.peer, HandshakeResult.success).set(total: UInt64(replicas.handshakesSucceeded))
        recordFailures(replicas, kind: .peer, into: metrics)
        let peers = replicas.openWithCertificate + replicas.openWithoutCertificate
        setOpen(.peer, handshaking: replicas.handshaking, open: peers, draining: replicas.shuttingDown, into: metrics)
    }

    private static func recordFailures(_ statistics: TLSServerStatistics, kind: ConnectionKind, into metrics: GatewayMetrics) {
        metrics.handshakes.labels(kind, HandshakeResult.failure).set(total: UInt64(statistics.handshakesFailed))
        for (failure, count) in statistics.handshakeFailures {
            metrics.handshakeFailures.labels(kind, reason(failure)).set(total: UInt64(count))
        }
    }

    private static func setOpen(_ kind: ConnectionKind, handshaking: Int, open: Int, draining: Bool, into metrics: GatewayMetrics) {
        metrics.connections.labels(kind, ConnectionState.handshaking).set(Int64(handshaking))
        metrics.connections.labels(kind, ConnectionState.active).set(Int64(draining ? 0 : open))
        metrics.connections.labels(kind, ConnectionState.draining).set(Int64(draining ? open : 0))
    }

    static func reason(_ failure: TLSHandshakeFailure) -> HandshakeFailureReason {
        switch failure {
        case .timeout: .timeout
        case .certificate: .certificate
        case .protocol: .protocol
        case .closed: .closed
        case .internal: .internal
        }
    }
}
