import GatewayRPC
import GatewayTransport
import GatewayWebSocket
import GatewayWire

/// Where and how the gateway listens.
public struct GatewayListenerConfiguration: Sendable {
    /// A numeric address (127.0.0.1, ::1, 0.0.0.0 in a container).
    public var host: String
    /// The TLS port; 0 picks a free one.
    public var port: Int
    /// The server certificate chain and key.
    public var certificate: CertificateKeyPair
    /// The CA whose client certificates prove reader serials (mutual TLS); nil: no reader certificates.
    public var readerCAPath: String?
    /// Event loop threads.
    public var loopCount: Int
    /// TLS handshakes in flight at once (``ConnectionLimits/maxHandshaking``).
    public var maxHandshaking = ConnectionLimits().maxHandshaking
    /// TLS handshakes in flight at once from one source address (``ConnectionLimits/maxHandshakingPerSource``).
    public var maxHandshakingPerSource = ConnectionLimits().maxHandshakingPerSource
    /// Quiet time after which a connection releases its TLS record buffers and its link's
    /// buffers (``ConnectionLimits/releaseBuffersAfter``; nil: kept).
    public var releaseBuffersAfter: Duration? = ConnectionLimits.defaultReleaseBuffersAfter
    /// Session ticket keys shared by the replicas, so a reader resumes its TLS session on any of
    /// them (``TLSServerConfiguration/ticketKeys``; nil: each replica's own random key).
    public var ticketKeys: TLSTicketKeys?
    /// How long a session ticket resumes (``TLSServerConfiguration/ticketLifetime``).
    public var ticketLifetime = TLSServerConfiguration.defaultTicketLifetime
    /// The replica-to-replica listener (mutual TLS with the cluster's internal CA).
    public var internalListener: InternalListenerConfiguration
    /// The WebSocket binding on the TLS port (browsers; PROTOCOL.md section 15): its origin
    /// allow-list and time limits. No origin is allowed by default.
    public var webSocket = WebSocketCarrierConfiguration()
    /// Message bytes one call may queue while its peer does not read (a `WatchFleet` watcher's
    /// bounded buffer); past it the call alone ends with RESOURCE_EXHAUSTED (`CONSUMER_TOO_SLOW`).
    public var maxQueuedBytesPerCall = ConnectionConfiguration(role: .server).maxQueuedBytesPerStream

    public init(
        host: String, port: Int, certificate: CertificateKeyPair, readerCAPath: String? = nil, loopCount: Int = 2,
        internalListener: InternalListenerConfiguration = InternalListenerConfiguration()
    ) {
        self.host = host
        self.port = port
        self.certificate = certificate
        self.readerCAPath = readerCAPath
        self.loopCount = loopCount
        self.internalListener = internalListener
    }
}

/// Where the replica link listens and what other replicas dial.
public struct InternalListenerConfiguration: Sendable {
    /// A numeric address to bind (0.0.0.0 in a container).
    public var host: String
    /// 0 picks a free port.
    public var port: Int
    /// The address other replicas dial; nil: `host` (which must then not be a wildcard).
    public var advertiseAddress: String?
    /// Where this replica writes its internal certificates (a private directory).
    public var certificateDirectory: String?

    public init(host: String = "127.0.0.1", port: Int = 0, advertiseAddress: String? = nil, certificateDirectory: String? = nil) {
        self.host = host
        self.port = port
        self.advertiseAddress = advertiseAddress
        self.certificateDirectory = certificateDirectory
    }
}
