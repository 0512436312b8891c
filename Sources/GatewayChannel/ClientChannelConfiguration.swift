import GatewayCore
import GatewayWire

/// Where a ``ClientChannel`` connects and how it proves who it talks to.
public struct ClientChannelConfiguration: Sendable {
    /// The ALPN protocol the gateway speaks.
    public static let alpnProtocol = "reader-gateway/1"

    /// The gateway's host: a numeric address (127.0.0.1, ::1) or a DNS name.
    public var host: String
    /// The gateway's TLS port.
    public var port: Int
    /// The name the server certificate must carry; nil checks `host`.
    public var serverName: String?
    /// The CA certificate (PEM) to pin; nil trusts the system store.
    public var trustedCAPath: String?
    /// A client certificate for mutual TLS (readers registered by serial number).
    public var clientCertificate: CertificateKeyPair?
    /// ALPN protocols to offer.
    public var alpnProtocols: [String]
    /// Keepalive pings; nil for none. The gateway allows at most one PING every 5 s.
    public var keepalive: ConnectionConfiguration.Keepalive?
    /// How long connecting (TCP plus TLS handshake) may take.
    public var connectTimeout: Duration
    /// The limits this side announces in SETTINGS.
    public var localSettings: ConnectionSettings

    public init(
        host: String,
        port: Int,
        serverName: String? = nil,
        trustedCAPath: String? = nil,
        clientCertificate: CertificateKeyPair? = nil,
        alpnProtocols: [String] = [ClientChannelConfiguration.alpnProtocol],
        keepalive: ConnectionConfiguration.Keepalive? = .init(interval: .seconds(10), timeout: .seconds(10)),
        connectTimeout: Duration = .seconds(10),
        localSettings: ConnectionSettings = ConnectionSettings()
    ) {
        self.host = host
        self.port = port
        self.serverName = serverName
        self.trustedCAPath = trustedCAPath
        self.clientCertificate = clientCertificate
        self.alpnProtocols = alpnProtocols
        self.keepalive = keepalive
        self.connectTimeout = connectTimeout
        self.localSettings = localSettings
    }

    package var connectionConfiguration: ConnectionConfiguration {
        ConnectionConfiguration(role: .client, localSettings: localSettings, keepalive: keepalive)
    }
}
