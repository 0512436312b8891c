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

extension StoreFixture {
    /// A lane of the client library on `connection`, its session open with the store's token as
    /// "Lane `number`" on device "pos-`number`".
    func openedLane(_ number: Int, on connection: GatewayConnection) async throws -> TerminalClient {
        let lane = TerminalClient(connection: connection)
        _ = try await lane.openSession(connectionToken: token, posDeviceID: "pos-\(number)", laneLabel: "Lane \(number)")
        return lane
    }
}
