import GatewayChannel
import GatewayTransport

extension ClientChannel {
    /// Connects over TLS on this process's event loops and completes the handshake
    /// (``LinuxTLSTransport``).
    ///
    /// - Parameter group: the event loops to run on; nil uses one loop shared by every
    ///   channel of the process.
    /// - Throws: ``RPCError`` `UNAVAILABLE` / `CONNECTION_LOST` saying why (refused, certificate
    ///   rejected, handshake timeout), or the transport's configuration error (bad CA path).
    public static func connect(_ configuration: ClientChannelConfiguration, group: EventLoopGroup? = nil) async throws -> ClientChannel {
        try await connect(configuration, over: LinuxTLSTransport(group: group))
    }
}

extension ClientChannelConfiguration {
    /// The TLS client settings of this configuration.
    var tlsConfiguration: TLSClientConfiguration {
        var limits = ConnectionLimits()
        limits.handshakeTimeout = connectTimeout
        // Liveness is the keepalive's job; the transport's idle timer would cut quiet event streams.
        limits.idleTimeout = nil
        return TLSClientConfiguration(trustedCAPath: trustedCAPath, certificate: clientCertificate, alpnProtocols: alpnProtocols, limits: limits)
    }
}
