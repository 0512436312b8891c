import Foundation
import GatewayTestKit
import GatewayTransport
import GatewayTestSupport
import Testing

/// A real `reader-gateway` process reports its PostgreSQL pool on `/metrics`: the configured
/// maximum, and the connections it holds open once it is ready.
@Suite("reader-gateway store pool metrics")
struct StorePoolMetricsProcessTests {
    @Test func metricsReportThePoolsMaximumAndItsOpenConnections() async throws {
        let database = try await TestPostgres.database()
        let directory = TestPostgres.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let certificates = try DevelopmentCertificates.ensure(in: directory + "/tls")
        let gateway = try await LoggedProcess.start(
            PackageExecutables.path("reader-gateway"),
            [
                "--tls-cert", certificates.server.certificateChainPath, "--tls-key", certificates.server.privateKeyPath,
                "--reader-ca", certificates.caCertificatePath,
                "--data-dir", directory + "/data", "--port", "0", "--internal-port", "0", "--ops-port", "0",
                "--node-name", "pool-metrics", "--database-pool-size", "5",
            ],
            logPath: directory + "/gateway.log",
            environment: ["READER_GATEWAY_DATABASE_URL=\(database.connectionString)"]
        )
        _ = try #require(await gateway.waitForLine(containing: "msg=ready"), "gateway not ready:\n\(gateway.output)")
        let opsLine = try #require(await gateway.waitForLine(containing: "ops endpoint listening"))
        let opsPort = try #require(LoggedProcess.field("port", in: opsLine).flatMap { Int($0) })

        func sample(_ body: String, _ series: String) -> Double? {
            body.split(separator: "\n").first { $0.hasPrefix(series + " ") }.flatMap { Double($0.split(separator: " ").last ?? "") }
        }
        // Ready means migrations ran and the store answered, so the pool holds a connection.
        var body = ""
        let reported = await eventually {
            body = await OpsProbe.body(port: opsPort, path: "/metrics")
            let open = (sample(body, #"reader_gateway_store_pool_connections{state="idle"}"#) ?? 0)
                + (sample(body, #"reader_gateway_store_pool_connections{state="in_use"}"#) ?? 0)
            return open >= 1
        }
        #expect(reported, "no open pool connection reported:\n\(body)")
        #expect(sample(body, "reader_gateway_store_pool_max_connections") == 5)
        #expect(sample(body, "reader_gateway_store_pool_waiters") != nil)
        #expect(await gateway.stop() == 0)
    }
}
