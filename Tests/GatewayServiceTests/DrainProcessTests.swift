import Foundation
import GatewayPostgres
import GatewayRepositories
import GatewayService
import GatewayTestKit
import GatewayTestSupport
import GatewayTransport
import GatewayWire
import Testing

/// SIGTERM to a real `reader-gateway` process while a lane is mid-collect on
/// a `reader-sim` reader: /readyz turns 503 first, the command completes or
/// fails with a retryable status, the process exits 0 within the deadline,
/// and the session it held is handed back to PostgreSQL (resumable).
@Suite("reader-gateway drain on SIGTERM", .serialized)
struct DrainProcessTests {
    @Test func sigtermMidCollectLosesNoCommandAndExitsZero() async throws {
        let database = try await TestPostgres.database()
        let directory = TestPostgres.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let drainDeadline = 10
        // One certificate for both replicas, as behind one load balancer name.
        let certificates = try DevelopmentCertificates.ensure(in: directory + "/tls")
        let tlsArguments = [
            "--tls-cert", certificates.server.certificateChainPath, "--tls-key", certificates.server.privateKeyPath,
            "--reader-ca", certificates.caCertificatePath,
        ]
        let gateway = try await LoggedProcess.start(
            PackageExecutables.path("reader-gateway"),
            tlsArguments + [
                "--data-dir", directory + "/data", "--port", "0", "--internal-port", "0", "--ops-port", "0", "--node-name", "drain-node-a",
                "--drain-load-balancer-seconds", "1", "--drain-deadline-seconds", "\(drainDeadline)", "--session-lease", "30s",
            ],
            logPath: directory + "/gateway.log",
            environment: ["READER_GATEWAY_DATABASE_URL=\(database.connectionString)"]
        )
        _ = try #require(await gateway.waitForLine(containing: "msg=ready"), "gateway not ready:\n\(gateway.output)")
        let listening = try #require(await gateway.waitForLine(containing: "gateway listening"))
        let port = try #require(LoggedProcess.field("address", in: listening)?.split(separator: ":").last.flatMap { Int($0) })
        let opsLine = try #require(await gateway.waitForLine(containing: "ops endpoint listening"))
        let opsPort = try #require(LoggedProcess.field("port", in: opsLine).flatMap { Int($0) })
        let caPath = certificates.caCertificatePath
        // "ready" in the log means ready to the probe: the store's start (its migrations) counts
        // as the first successful store check.
        #expect(await OpsProbe.status(port: opsPort, path: "/readyz") == 200)
        let account = try await DevelopmentAccount.create(name: "drain test", client: database.client)

        let simulator = try await LoggedProcess.start(
            PackageExecutables.path("reader-sim"),
            ["--gateway", "127.0.0.1:\(port)", "--ca", caPath, "--serial", "WSCDRAIN0001", "--heartbeat-interval", "300ms", "--collect-duration", "1500ms", "--reconnect-delay", "200ms"],
            logPath: directory + "/sim.log"
        )
        let codeLine = try #require(await simulator.waitForLine(containing: "registration_code"), "no code:\n\(simulator.output)")
        let code = try #require(LoggedProcess.field("code", in: codeLine))
        let loops = try EventLoopGroup(loopCount: 1)
        let adminChannel = try await TestChannel.connect(port: port, caPath: caPath, loop: loops.next())
        let admin = TestAdmin(channel: adminChannel, secretKey: account.secretKey)
        let location = try await admin.createLocation("Drain store")
        let reader = try await admin.registerCode(code, label: "Drain reader", location: location)
        _ = try #require(await simulator.waitForLine(containing: "online"), "reader-sim not online:\n\(simulator.output)")
        let token = try await admin.connectionToken(location: location)
        let lane = try await TestLane.open(port: port, caPath: caPath, loop: loops.next(), connectionToken: token, label: "Drain lane")
        try await lane.discoverAndConnect(reader.id, location: location, failIfInUse: true)

        // Mid-collect: the reader took the command and is reading the card.
        let collect = Task { () -> Result<ReaderGatewayV1.CollectPaymentMethodResponse, any Error> in
            do { return .success(try await lane.collect()) } catch { return .failure(error) }
        }
        _ = try #require(await simulator.waitForLine(containing: "kind=collect", timeout: .seconds(5)), "no collect on reader-sim:\n\(simulator.output)")
        let signalled = ContinuousClock.now
        gateway.process.signal(SIGTERM)

        // /readyz fails first, while the replica still answers. It keeps failing from the signal
        // until the process exits (the load balancer window, then the drain of in-flight
        // commands), so the test waits for it rather than racing the window.
        var readyStatus = 0
        let notReadyBy = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < notReadyBy, gateway.process.poll() == nil {
            readyStatus = await OpsProbe.status(port: opsPort, path: "/readyz")
            if readyStatus == 503 { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(readyStatus == 503, "/readyz never answered 503 while the replica drained")
        #expect(await OpsProbe.status(port: opsPort, path: "/healthz") == 200)

        // The command completes, or fails with a status that says: retry elsewhere.
        switch await collect.value {
        case .success: print("drain: the collect in flight completed")
        case .failure(let failure as CallFailure):
            #expect(failure.code == .unavailable, "collect failed with a status that is not retryable: \(failure)")
            // The collect (1.5 s) is far inside the drain deadline: the drain must have waited for it.
            Issue.record("the collect in flight did not complete within the drain deadline: \(failure)")
        case .failure(let error):
            Issue.record("collect failed with \(error)")
        }
        let status = await gateway.process.wait(timeout: .seconds(drainDeadline + 5))
        let exitedAfter = ContinuousClock.now - signalled
        #expect(status == 0, "exit status \(String(describing: status)):\n\(gateway.output)")
        #expect(exitedAfter < .seconds(drainDeadline + 2))
        #expect(exitedAfter >= .seconds(1), "exited inside the load balancer window")
        print("drain: SIGTERM to exit \(exitedAfter)")
        // Durations in the log are numbers of seconds.
        let lines = gateway.output.split(separator: "\n").map(String.init)
        let finished = try #require(lines.first { $0.contains("drain finished") }, "no drain finished line:\n\(gateway.output)")
        let drainSeconds = try #require(LoggedProcess.field("seconds", in: finished).flatMap(Double.init), "seconds is not a number: \(finished)")
        #expect(drainSeconds >= 1, "the drain includes the 1 s load balancer window: \(finished)")
        let draining = try #require(lines.first { $0.contains("msg=draining ") }, "no draining line:\n\(gateway.output)")
        #expect(LoggedProcess.field("load_balancer_window_seconds", in: draining) == "1", "\(draining)")
        #expect(LoggedProcess.field("in_flight_deadline_seconds", in: draining) == "\(drainDeadline)", "\(draining)")
        for line in gateway.output.split(separator: "\n") where line.contains("drain") { print(line) }

        // Nothing in PostgreSQL claims a connection this replica no longer holds:
        // the session is open, not closed, with a lease running from the drain.
        let rows = try await database.client.query(
            "SELECT count(*)::int AS n FROM sdk_sessions WHERE node_id LIKE 'drain-node-a-%' AND closed_at IS NULL AND lease_expires_at > now() + interval '20 seconds'"
        )
        #expect(try rows.first?.decode(Int.self, "n") == 1)

        // A second replica on the same database and address (what the load
        // balancer sends the reconnects to): the lane resumes its session
        // there with its resume token, and keeps its reader once the reader
        // re-attached.
        let second = try await LoggedProcess.start(
            PackageExecutables.path("reader-gateway"),
            tlsArguments + ["--port", "\(port)", "--internal-port", "0", "--node-name", "drain-node-b", "--session-lease", "30s"],
            logPath: directory + "/gateway-b.log",
            environment: ["READER_GATEWAY_DATABASE_URL=\(database.connectionString)"]
        )
        _ = try #require(await second.waitForLine(containing: "msg=ready"), "second gateway not ready:\n\(second.output)")
        let channelB = try await TestChannel.connect(port: port, caPath: caPath, loop: loops.next())
        var resume = ReaderGatewayV1.OpenSessionRequest()
        resume.resumeToken = lane.token
        resume.posDeviceID = "pos-Drain lane"
        let resumed = try await channelB.unary(ReaderGatewayV1.Sdk.openSession, resume)
        #expect(resumed.resumed)
        #expect(resumed.sessionID == lane.sessionID)
        // The reader's link to the drained replica ended, which (ownership
        // rules: a lost reader link releases its owner) released the reader;
        // the resumed session reconnects it on this replica once it re-attached.
        let ownedAfterDrain = resumed.connectedReader?.id
        print("drain: resumed on the second replica, reader still owned: \(ownedAfterDrain == reader.id)")
        if ownedAfterDrain != reader.id {
            var connected = false
            let connectBy = ContinuousClock.now + .seconds(10)
            while !connected, ContinuousClock.now < connectBy {
                var discover = ReaderGatewayV1.DiscoverReadersRequest()
                discover.sessionToken = lane.token
                discover.locationID = location
                let discovery = try await channelB.unary(ReaderGatewayV1.Sdk.discoverReaders, discover)
                var connect = ReaderGatewayV1.ConnectReaderRequest()
                connect.sessionToken = lane.token
                connect.readerID = reader.id
                connect.discoveryID = discovery.discoveryID
                connect.failIfInUse = true
                do {
                    _ = try await channelB.unary(ReaderGatewayV1.Sdk.connectReader, connect)
                    connected = true
                } catch let failure as CallFailure {
                    print("drain: connect on the second replica: \(failure)")
                    var cancel = ReaderGatewayV1.CancelDiscoveryRequest()
                    cancel.sessionToken = lane.token
                    _ = try? await channelB.unary(ReaderGatewayV1.Sdk.cancelDiscovery, cancel)
                    try await Task.sleep(for: .milliseconds(200))
                }
            }
            #expect(connected, "the resumed session could not reconnect its reader:\n\(second.output)")
        }
        var collectAgain = ReaderGatewayV1.CollectPaymentMethodRequest()
        collectAgain.sessionToken = lane.token
        var params = ReaderGatewayV1.CollectPaymentMethodParams()
        params.paymentIntentID = "pi_after_drain"
        params.amount = 500
        params.currency = "usd"
        collectAgain.params = params
        // The reader may need a moment to re-attach (reconnect delay); retry while it is offline.
        var collected = false
        let collectBy = ContinuousClock.now + .seconds(10)
        while !collected, ContinuousClock.now < collectBy {
            do {
                _ = try await channelB.unary(ReaderGatewayV1.Sdk.collectPaymentMethod, collectAgain)
                collected = true
            } catch let failure as CallFailure {
                print("drain: collect on the second replica: \(failure)")
                try await Task.sleep(for: .milliseconds(200))
            }
        }
        #expect(collected, "the resumed session could not collect on its reader:\n\(second.output)\n\(simulator.output)")
        let rowsB = try await database.client.query(
            "SELECT count(*)::int AS n FROM sdk_sessions WHERE node_id LIKE 'drain-node-b-%' AND closed_at IS NULL"
        )
        #expect(try rowsB.first?.decode(Int.self, "n") == 1)

        channelB.close()
        #expect(await second.stop() == 0)
        adminChannel.close()
        lane.channel.close()
        _ = await simulator.stop()
        await loops.shutdown()
        await database.close()
    }
}

/// An HTTP/1.0 GET on 127.0.0.1 (the ops endpoint closes after each answer), made with a
/// blocking socket on a thread of its own.
enum OpsProbe {
    static func status(port: Int, path: String) async -> Int {
        let text = await onOwnThread { fetch(port: port, path: path) }
        let parts = text.split(separator: " ", maxSplits: 2)
        return parts.count >= 2 ? Int(parts[1]) ?? 0 : 0
    }

    static func body(port: Int, path: String) async -> String { await onOwnThread { fetch(port: port, path: path) } }

    private static func fetch(port: Int, path: String) -> String {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return "" }
        defer { close(descriptor) }
        var timeout = timeval(tv_sec: 2, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { return "" }
        let request = Array("GET \(path) HTTP/1.0\r\n\r\n".utf8)
        _ = request.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, 0) }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16384)
        for _ in 0..<256 {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count <= 0 { break }
            received += buffer[0..<count]
        }
        return String(decoding: received, as: UTF8.self)
    }
}
