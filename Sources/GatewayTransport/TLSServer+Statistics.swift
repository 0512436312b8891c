import Synchronization

/// Why a server connection's TLS handshake failed, as counted by ``TLSServerStatistics``.
public enum TLSHandshakeFailure: Int, Sendable, CaseIterable {
    /// The handshake did not finish within `ConnectionLimits.handshakeTimeout`.
    case timeout
    /// The peer's certificate did not verify (unknown CA, expired, wrong name).
    case certificate
    /// The peer did not speak TLS, or shared no version, cipher or ALPN protocol with the server.
    case `protocol`
    /// The peer closed the connection before the handshake finished.
    case closed
    /// Anything else: the server closed it (eviction, shutdown) or could not set it up.
    case `internal`
}

/// A read-only picture of a server's connections: running totals since start and what is open now.
///
/// Taken from relaxed atomics one by one, so the figures may be a few connections apart from
/// each other when connections come and go during the read.
public struct TLSServerStatistics: Sendable, Equatable {
    /// Connections accepted since start (those refused by the connection cap are not).
    public var accepted = 0
    /// Handshakes that succeeded since start with a client certificate the server verified.
    public var handshakesWithCertificate = 0
    /// Handshakes that succeeded since start without a client certificate.
    public var handshakesWithoutCertificate = 0
    /// Of ``handshakesWithCertificate``, those that resumed a session (no certificate exchange).
    public var handshakesResumedWithCertificate = 0
    /// Of ``handshakesWithoutCertificate``, those that resumed a session.
    public var handshakesResumedWithoutCertificate = 0
    /// Session tickets issued on established connections since start: long-lived reader
    /// links renewing theirs half a ticket lifetime after the last one.
    public var ticketsRenewed = 0
    /// Handshakes that failed since start, by reason (every reason present, 0 if none).
    public var handshakeFailures: [TLSHandshakeFailure: Int] = [:]
    /// Connections in their handshake now.
    public var handshaking = 0
    /// Connections past the handshake now whose peer presented a verified certificate.
    public var openWithCertificate = 0
    /// Connections past the handshake now whose peer presented none.
    public var openWithoutCertificate = 0
    /// Whether the server is shutting down (its open connections are draining).
    public var shuttingDown = false

    public init() {}

    /// Handshakes that succeeded since start.
    public var handshakesSucceeded: Int { handshakesWithCertificate + handshakesWithoutCertificate }
    /// Handshakes that failed since start.
    public var handshakesFailed: Int { handshakeFailures.values.reduce(0, +) }
}

/// The handshake outcomes of one server's connections (part of ``ServerCounters``).
final class HandshakeCounters: Sendable {
    let withCertificate = Atomic<Int>(0)
    let withoutCertificate = Atomic<Int>(0)
    let openWithCertificate = Atomic<Int>(0)
    let resumedWithCertificate = Atomic<Int>(0)
    let resumedWithoutCertificate = Atomic<Int>(0)
    let timeout = Atomic<Int>(0)
    let certificate = Atomic<Int>(0)
    let `protocol` = Atomic<Int>(0)
    let closed = Atomic<Int>(0)
    let `internal` = Atomic<Int>(0)

    func failed(_ reason: TLSHandshakeFailure) {
        switch reason {
        case .timeout: timeout.add(1, ordering: .relaxed)
        case .certificate: certificate.add(1, ordering: .relaxed)
        case .protocol: self.protocol.add(1, ordering: .relaxed)
        case .closed: closed.add(1, ordering: .relaxed)
        case .internal: self.internal.add(1, ordering: .relaxed)
        }
    }

    func failures(_ reason: TLSHandshakeFailure) -> Int {
        switch reason {
        case .timeout: timeout.load(ordering: .relaxed)
        case .certificate: certificate.load(ordering: .relaxed)
        case .protocol: self.protocol.load(ordering: .relaxed)
        case .closed: closed.load(ordering: .relaxed)
        case .internal: self.internal.load(ordering: .relaxed)
        }
    }
}

extension TLSServer {
    /// The server's connection counts now (cheap: a few relaxed loads; call it at scrape time).
    public var statistics: TLSServerStatistics {
        var snapshot = TLSServerStatistics()
        let handshakes = counters.handshakes
        snapshot.accepted = counters.accepted.load(ordering: .relaxed)
        snapshot.handshakesWithCertificate = handshakes.withCertificate.load(ordering: .relaxed)
        snapshot.handshakesWithoutCertificate = handshakes.withoutCertificate.load(ordering: .relaxed)
        snapshot.handshakesResumedWithCertificate = handshakes.resumedWithCertificate.load(ordering: .relaxed)
        snapshot.handshakesResumedWithoutCertificate = handshakes.resumedWithoutCertificate.load(ordering: .relaxed)
        snapshot.ticketsRenewed = counters.ticketsRenewed.load(ordering: .relaxed)
        for reason in TLSHandshakeFailure.allCases { snapshot.handshakeFailures[reason] = handshakes.failures(reason) }
        let open = counters.connections.load(ordering: .relaxed)
        let handshaking = counters.handshaking.load(ordering: .relaxed)
        let withCertificate = handshakes.openWithCertificate.load(ordering: .relaxed)
        snapshot.handshaking = handshaking
        snapshot.openWithCertificate = withCertificate
        snapshot.openWithoutCertificate = max(0, open - handshaking - withCertificate)
        snapshot.shuttingDown = counters.shuttingDown.load(ordering: .relaxed)
        return snapshot
    }
}
