import GatewayClient

extension GatewayHarness {
    /// How a client library's channel reaches this gateway: its loopback port, trusting its dev CA.
    var clientConfiguration: ClientChannelConfiguration {
        ClientChannelConfiguration(host: "127.0.0.1", port: port, serverName: "localhost", trustedCAPath: caPath)
    }
}

extension GatewayHarness {
    /// Runs `body` with this gateway, then stops it, whether `body` returned or threw.
    func run(_ body: (GatewayHarness) async throws -> Void) async throws {
        do {
            try await body(self)
        } catch {
            await stop()
            throw error
        }
        await stop()
    }
}
