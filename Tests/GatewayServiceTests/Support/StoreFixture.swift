import GatewayWire

/// A store with one location, one reader registered by serial and attached
/// with its reader-CA certificate, and a connection token for two lanes.
struct StoreFixture: Sendable {
    let harness: GatewayHarness
    let admin: TestAdmin
    let location: String
    let reader: TestReader
    let readerID: String
    let token: String

    static func make(_ harness: GatewayHarness, serial: String = "WSC513105011295") async throws -> StoreFixture {
        let admin = try await harness.admin()
        let location = try await admin.createLocation("Main street")
        let registered = try await admin.registerSerials([serial], prefix: "Front", location: location)
        let reader = try await TestReader.attach(harness, serial: serial, certificate: try harness.readerCertificate(serial: serial))
        guard let state = await reader.waitUntilRegistered() else {
            throw CallFailure(status: reader.endStatus ?? ReaderGatewayV1.Status(.internal, "the reader did not come online"))
        }
        precondition(state.readerID == registered[0].id)
        return StoreFixture(
            harness: harness, admin: admin, location: location, reader: reader, readerID: state.readerID,
            token: try await admin.connectionToken(location: location)
        )
    }

    func lane(_ label: String) async throws -> TestLane {
        try await TestLane.open(harness, connectionToken: token, label: label)
    }
}
