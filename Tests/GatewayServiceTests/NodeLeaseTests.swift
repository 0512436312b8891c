import GatewayCore
import GatewayOperations
import GatewayPostgres
@testable import GatewayService
import GatewayTestKit
import GatewayTestSupport
import GatewayTransport
import Synchronization
import Testing

/// The node heartbeat does not wait behind the pool: a burst of statements that fills the pool
/// (thousands of links lost at once) cannot cost a replica its node lease.
@Suite("node lease under a saturated pool")
struct NodeLeaseTests {
    @Test("the node heartbeat renews the lease while every pool connection is held and statements queue behind them")
    func heartbeatOutlivesASaturatedPool() async throws {
        let database = try await TestPostgres.database(maximumConnections: 1)
        // The replica's own client: a pool of two connections whose waiting statements do not
        // time out during the test.
        var configuration = PostgresConfiguration(connectionString: database.connectionString)
        configuration.maximumConnections = 2
        configuration.connectionWaitTimeout = .seconds(600)
        let client = try PostgresClient(configuration: configuration, logger: Logger(component: "store"))
        let directory = TestPostgres.makeTemporaryDirectory()
        let authority = try CertificateAuthority.create(commonName: "test CA")
        let caPath = directory + "/ca.pem"
        try authority.write(certificatePath: caPath, keyPath: directory + "/ca-key.pem")
        let certificate = try authority.issue(
            CertificateRequest(commonName: "localhost", dnsNames: ["localhost"], ipAddresses: ["127.0.0.1"], usage: .server),
            writingTo: directory, name: "server"
        )
        var service = ServiceConfiguration()
        service.nodeLease = .seconds(1)
        let host = GatewayServiceHost(
            listener: GatewayListenerConfiguration(host: "127.0.0.1", port: 0, certificate: certificate, readerCAPath: caPath, loopCount: 1),
            service: service, client: client, metrics: GatewayMetrics(callMethods: GatewayServiceHost.methodNames, includeProcessMetrics: false),
            closeGracePeriod: .milliseconds(200)
        )
        let running = try await RunningPart.start(host)
        let node = try #require(host.nodeID)

        // Saturate the pool: both connections pinned by transactions that wait for the test,
        // and a statement queued behind them.
        let state = SaturationState()
        let holders = (0..<2).map { _ in
            Task {
                try await client.withTransaction { transaction in
                    _ = try await transaction.query("SELECT 1")
                    state.held.wrappingAdd(1, ordering: .relaxed)
                    _ = await eventually(timeout: .seconds(600)) { state.release.load(ordering: .relaxed) }
                }
            }
        }
        #expect(await eventually { state.held.load(ordering: .relaxed) == 2 }, "the transactions did not get the pool's two connections")
        let queued = Task {
            _ = try await client.query("SELECT 1")
            state.queuedDone.store(true, ordering: .relaxed)
        }

        // The heartbeat keeps renewing the node's row: five renewals after saturation span at
        // least four heartbeat intervals (lease/5 each), most of a lease.
        func beat() async throws -> Int64? {
            try await database.client.query(
                "SELECT (extract(epoch FROM heartbeat_at) * 1000000)::bigint AS beat FROM gateway_nodes WHERE node_id = $1", [PostgresValue(node)]
            ).first?.decode(Int64.self, "beat")
        }
        var last = try #require(try await beat(), "the node is not registered")
        var renewals = 0
        while renewals < 5 {
            let renewed = try await eventually {
                guard let now = try await beat() else { return false }
                return now > last
            }
            #expect(renewed, "the node heartbeat stopped while the pool was saturated (after \(renewals) renewals)")
            guard renewed, let now = try await beat() else { break }
            last = now
            renewals += 1
        }
        let queuedRan = state.queuedDone.load(ordering: .relaxed)
        #expect(!queuedRan, "the pool was not saturated: the queued statement ran")
        #expect(try await beat() != nil, "the node's row is gone: the replica lost its lease")

        // Once the transactions end, the queued statement runs too.
        state.release.store(true, ordering: .relaxed)
        for holder in holders { try await holder.value }
        try await queued.value
        let queuedRanAtLast = state.queuedDone.load(ordering: .relaxed)
        #expect(queuedRanAtLast)
        try await running.stop()
        await client.shutdown()
        await database.close()
    }
}

/// What the saturating transactions and the queued statement share with the test.
private final class SaturationState: Sendable {
    /// Transactions holding a pool connection.
    let held = Atomic<Int>(0)
    /// The test lets the transactions end.
    let release = Atomic<Bool>(false)
    /// The statement queued behind the transactions ran.
    let queuedDone = Atomic<Bool>(false)
}
