import Foundation
import GatewayCore
import GatewayOperations
import GatewayPostgres
import GatewayRepositories
import GatewayService
import GatewayTestSupport
import GatewayTransport
import Testing

/// How the host refuses a configuration it cannot serve.
@Suite("host configuration")
struct HostConfigurationTests {
    @Test func aWildcardInternalBindWithoutAnAdvertiseAddressStartsNothing() async throws {
        let database = try await TestPostgres.database(maximumConnections: 4)
        let directory = TestPostgres.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let authority = try CertificateAuthority.create(commonName: "test CA")
        let server = try authority.issue(
            CertificateRequest(commonName: "localhost", dnsNames: ["localhost"], ipAddresses: ["127.0.0.1"], usage: .server),
            writingTo: directory, name: "server"
        )
        let host = GatewayServiceHost(
            listener: GatewayListenerConfiguration(
                host: "127.0.0.1", port: 0, certificate: server,
                internalListener: InternalListenerConfiguration(host: "0.0.0.0", certificateDirectory: directory + "/internal")
            ),
            service: ServiceConfiguration(), client: database.client,
            metrics: GatewayMetrics(callMethods: GatewayServiceHost.methodNames, includeProcessMetrics: false), closeGracePeriod: .zero
        )
        do {
            let running = try await RunningPart.start(host)
            Issue.record("a wildcard internal bind without an advertise address started")
            try await running.stop()
        } catch {
            #expect("\(error)".contains("--advertise-address is required"), "\(error)")
        }
        // Refused before anything started: no node registered, no internal certificates written.
        #expect(try await database.client.query("SELECT node_id FROM gateway_nodes").count == 0)
        #expect(!FileManager.default.fileExists(atPath: directory + "/internal"))
        await database.close()
    }
}
