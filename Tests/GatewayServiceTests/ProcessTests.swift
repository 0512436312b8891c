import Foundation
import GatewayService
import GatewayTestSupport
import GatewayTransport
import GatewayWire
import Testing

/// The real processes: `reader-gateway` against PostgreSQL, `reader-sim` as the
/// reader, lanes and an admin over TLS.
@Suite("reader-gateway and reader-sim as processes", .serialized)
struct ProcessTests {
    @Test func registrationByCodeTakeoverAndReaderLossAcrossProcesses() async throws {
        let database = try await TestPostgres.database()
        let directory = TestPostgres.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let gateway = try await LoggedProcess.start(
            PackageExecutables.path("reader-gateway"),
            ["--data-dir", directory + "/data", "--port", "0", "--internal-port", "0", "--reader-offline-bound", "2s", "--session-lease", "5s"],
            logPath: directory + "/gateway.log",
            environment: ["READER_GATEWAY_DATABASE_URL=\(database.connectionString)"]
        )
        _ = try #require(await gateway.waitForLine(containing: "msg=ready"), "gateway not ready:\n\(gateway.output)")
        let listening = try #require(await gateway.waitForLine(containing: "gateway listening"))
        let port = try #require(LoggedProcess.field("address", in: listening)?.split(separator: ":").last.flatMap { Int($0) })
        let caLine = try #require(await gateway.waitForLine(containing: "development TLS certificates"))
        let caPath = try #require(LoggedProcess.field("ca", in: caLine))
        #expect(!FileManager.default.fileExists(atPath: directory + "/data"))
        // With a database URL the gateway never prints a secret.
        #expect(!gateway.output.contains("secret key"))
        let account = try await DevelopmentAccount.create(name: "process test", client: database.client)

        let simulator = try await LoggedProcess.start(
            PackageExecutables.path("reader-sim"),
            ["--gateway", "127.0.0.1:\(port)", "--ca", caPath, "--serial", "WSCPROC00001", "--heartbeat-interval", "300ms"],
            logPath: directory + "/sim.log"
        )
        let codeLine = try #require(await simulator.waitForLine(containing: "registration_code"), "no code:\n\(simulator.output)")
        let code = try #require(LoggedProcess.field("code", in: codeLine))

        let loops = try EventLoopGroup(loopCount: 1)
        let adminChannel = try await TestChannel.connect(port: port, caPath: caPath, loop: loops.next())
        let admin = TestAdmin(channel: adminChannel, secretKey: account.secretKey)
        let location = try await admin.createLocation("Process store")
        let reader = try await admin.registerCode(code, label: "Till reader", location: location)
        _ = try #require(await simulator.waitForLine(containing: "online"), "reader-sim not online:\n\(simulator.output)")

        let token = try await admin.connectionToken(location: location)
        let laneA = try await TestLane.open(port: port, caPath: caPath, loop: loops.next(), connectionToken: token, label: "Lane 1")
        let laneB = try await TestLane.open(port: port, caPath: caPath, loop: loops.next(), connectionToken: token, label: "Lane 2")
        try await laneA.discoverAndConnect(reader.id, location: location, failIfInUse: true)
        try await laneA.setDisplay()
        _ = try #require(await simulator.waitForLine(containing: "display"), "no display on reader-sim:\n\(simulator.output)")
        try await laneB.discoverAndConnect(reader.id, location: location, failIfInUse: true)
        await expectFailure(.readerConnectedToAnotherSession) { try await laneA.setDisplay() }
        #expect(laneA.eventArrived(before: .readerConnectedToAnotherSession))
        #expect(await laneA.waitForDisconnect()?.takenByLaneLabel == "Lane 2")

        // The reader process dies: its owner hears of it within the bound.
        simulator.process.signal(SIGKILL)
        _ = await simulator.process.wait(timeout: .seconds(5))
        let lost = try #require(await laneB.waitForDisconnect(timeout: .seconds(6)))
        #expect(lost.reason == .readerLost)
        #expect(try await admin.ownership(of: reader.id).owner == nil)

        adminChannel.close()
        laneA.channel.close()
        laneB.channel.close()
        #expect(await gateway.stop() == 0)
        await loops.shutdown()
        await database.close()
    }

    @Test func firstRunOfAnEmbeddedDataDirectoryPrintsTheDevelopmentAccountOnce() async throws {
        let directory = TestPostgres.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // PostgreSQL runs as its own user: the data directory must be reachable.
        chmod(directory, 0o777)
        let arguments = ["--data-dir", directory + "/data", "--port", "0", "--internal-port", "0"]
        let first = try await LoggedProcess.start(PackageExecutables.path("reader-gateway"), arguments, logPath: directory + "/first.log")
        _ = try #require(await first.waitForLine(containing: "msg=ready", timeout: .seconds(90)), "not ready:\n\(first.output)")
        let secretLine = try #require(await first.waitForLine(containing: "secret key:"))
        #expect(secretLine.contains("sk_"))
        #expect(first.output.contains("dev defaults"))
        #expect(first.output.contains(directory + "/data/tls/ca.pem"))
        #expect(await first.stop() == 0)

        let second = try await LoggedProcess.start(PackageExecutables.path("reader-gateway"), arguments, logPath: directory + "/second.log")
        _ = try #require(await second.waitForLine(containing: "msg=ready", timeout: .seconds(90)), "not ready:\n\(second.output)")
        #expect(!second.output.contains("secret key"))
        #expect(await second.stop() == 0)
    }
}
