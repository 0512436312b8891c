import GatewayCore

/// Whether the server asks clients for a certificate.
public enum ClientAuthentication: Sendable, Hashable {
    /// No client certificates (lanes, SDK sessions).
    case none
    /// Clients may present a certificate; if they do it must verify against the CA file.
    case optional(trustedCAPath: String)
    /// Every client must present a certificate that verifies against the CA file (readers).
    case required(trustedCAPath: String)
}

/// What to do with a peer whose write buffer passes the high-water mark.
public enum SlowPeerPolicy: Sendable, Hashable {
    /// Stop reading from the peer until its write buffer drains below the low-water mark.
    case pauseReading
    /// Close the connection.
    case close
}

/// Per-connection and per-server resource limits.
public struct ConnectionLimits: Sendable, Hashable {
    /// Connections held at once by one server; more are accepted and closed at once.
    public var maxConnections: Int = 100_000
    /// Connections in the TLS handshake at once. A new connection over it closes the oldest one
    /// still in handshake (those that have not sent a whole ClientHello first) with
    /// ``CloseReason/handshakeEvicted``: a flood of silent sockets never makes a new client wait.
    public var maxHandshaking: Int = 1_024
    /// Connections in the TLS handshake at once from one source address (IPv6: one /64). A new
    /// connection over it closes that source's oldest handshake, so one source's flood stays
    /// within its own share and never reaches ``maxHandshaking``'s shared pool first. Behind a
    /// proxy that hides client addresses every client shares the proxy's address: raise it to
    /// ``maxHandshaking`` there (see the module's README).
    public var maxHandshakingPerSource: Int = 64
    /// Time from accept (or connect) to a finished handshake.
    public var handshakeTimeout: Duration = .seconds(10)
    /// Time without any bytes read or written before the connection is closed (nil: never).
    public var idleTimeout: Duration? = .seconds(300)
    /// Time a graceful close waits for the peer's close_notify.
    public var closeTimeout: Duration = .seconds(2)
    /// Queued bytes above which the connection is unwritable (and ``slowPeerPolicy`` applies).
    public var writeBufferHighWater: Int = 256 * 1024
    /// Queued bytes below which a paused connection is writable again.
    public var writeBufferLowWater: Int = 64 * 1024
    /// Queued bytes that close the connection whatever the policy: nothing is buffered without bound.
    public var writeBufferHardLimit: Int = 1024 * 1024
    /// What to do with a peer that does not read what we write.
    public var slowPeerPolicy: SlowPeerPolicy = .pauseReading
    /// TLS reads (each up to one record) per connection per loop tick, so one busy peer cannot starve the rest.
    public var readsPerTick: Int = 16
    /// Quiet time after which an established connection's TLS record buffers (OpenSSL's, about
    /// 17 KiB each way) and its handler's per-link buffers are released; they are taken again on
    /// the next record (nil: kept for the connection's life, as most TLS servers do). A
    /// connection whose releases are undone at once waits longer (``IdleBufferRelease``). See
    /// `TLSConnection+Buffers.swift` for how the default was chosen.
    public var releaseBuffersAfter: Duration? = ConnectionLimits.defaultReleaseBuffersAfter
    /// The default of ``releaseBuffersAfter``.
    public static let defaultReleaseBuffersAfter: Duration = .milliseconds(20)

    public init() {}
}

/// How a ``TLSServer`` listens and authenticates.
public struct TLSServerConfiguration: Sendable {
    /// A numeric address to listen on (loopback in tests: 127.0.0.1 or ::1).
    public var host: String
    /// The port; 0 picks a free one (read it back from ``TLSServer/localAddress``).
    public var port: Int
    /// One or more certificates (for example an ECDSA and an RSA one); OpenSSL picks per client.
    public var certificates: [CertificateKeyPair]
    public var clientAuthentication: ClientAuthentication
    /// ALPN protocol names the server accepts, most preferred first (empty: no ALPN).
    public var alpnProtocols: [String]
    public var limits: ConnectionLimits
    /// The listen backlog.
    public var backlog: Int32 = 4_096
    /// Session tickets sent after a TLS 1.3 handshake (0 disables resumption).
    public var sessionTickets: Int = 2
    /// Keys that encrypt session tickets, shared by every replica so that a reader resumes its
    /// session on any of them (nil: OpenSSL's own random keys, which only this context knows).
    public var ticketKeys: TLSTicketKeys?
    /// How long after it was issued a session ticket still resumes; older ones get a full
    /// handshake (and a new ticket).
    public var ticketLifetime: Duration = TLSServerConfiguration.defaultTicketLifetime
    /// The default of ``ticketLifetime``: a day, far inside a reader certificate's life (the
    /// certificate's own expiry is checked again on every resumption).
    public static let defaultTicketLifetime: Duration = .seconds(24 * 3600)

    public init(
        host: String,
        port: Int,
        certificates: [CertificateKeyPair],
        clientAuthentication: ClientAuthentication = .none,
        alpnProtocols: [String] = [],
        limits: ConnectionLimits = ConnectionLimits()
    ) {
        self.host = host
        self.port = port
        self.certificates = certificates
        self.clientAuthentication = clientAuthentication
        self.alpnProtocols = alpnProtocols
        self.limits = limits
    }
}

/// How a TLS client verifies the server and, optionally, authenticates itself.
public struct TLSClientConfiguration: Sendable {
    /// CA certificates (PEM) the server must chain to; nil uses the system trust store.
    public var trustedCAPath: String?
    /// A client certificate for mutual TLS (readers).
    public var certificate: CertificateKeyPair?
    /// ALPN protocols to offer, most preferred first.
    public var alpnProtocols: [String]
    /// Verify the server's certificate and name (turn off only in load generators).
    public var verifyServer: Bool = true
    public var limits: ConnectionLimits
    /// Only TLS 1.3 (load generators measuring TLS 1.3 handshakes); default allows 1.2 and 1.3.
    public var tls13Only: Bool = false

    public init(
        trustedCAPath: String? = nil,
        certificate: CertificateKeyPair? = nil,
        alpnProtocols: [String] = [],
        limits: ConnectionLimits = ConnectionLimits()
    ) {
        self.trustedCAPath = trustedCAPath
        self.certificate = certificate
        self.alpnProtocols = alpnProtocols
        self.limits = limits
    }
}
