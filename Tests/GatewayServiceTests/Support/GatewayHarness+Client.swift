import GatewayClient

extension GatewayHarness {
    /// How a client library's channel reaches this gateway: its loopback port, trusting its dev CA.
    var clientConfiguration: ClientChannelConfiguration {
        ClientChannelConfiguration(host: "127.0.0.1", port: port, serverName: "localhost", trustedCAPath: caPath)
    }
}
