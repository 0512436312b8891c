import Foundation
import GatewayTestSupport
import GatewayTestKit
#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import Testing
@testable import GatewayOperations

/// A readiness condition a test can flip.
final class Switch: Sendable {
    private let on: Atomic<Bool>
    init(_ on: Bool) { self.on = Atomic(on) }
    var isOn: Bool { on.load(ordering: .relaxed) }
    func set(_ value: Bool) { on.store(value, ordering: .relaxed) }
}

/// A server on an ephemeral loopback port with a switchable store check.
final class OpsServerHarness {
    let metrics = GatewayMetrics(callMethods: ["ConnectReader"])
    let storeReachable = Switch(true)
    let server: OpsServer
    let port: Int

    init(_ configure: (inout OpsServerConfiguration) -> Void = { _ in }) throws {
        var configuration = OpsServerConfiguration(host: "127.0.0.1", port: 0)
        configure(&configuration)
        let store = storeReachable
        let router = OpsRouter(collection: metrics.collection, readinessChecks: [
            ReadinessCheck("store") { store.isOn ? .ready : .notReady("cannot connect to PostgreSQL") },
            ReadinessCheck("migrations") { .ready },
        ])
        server = OpsServer(configuration: configuration, router: router)
        port = try server.start()
    }

    deinit { server.stop() }
}

@Suite("Ops HTTP server over real sockets")
struct OpsServerTests {
    @Test("/healthz answers 200 alive")
    func healthz() async throws {
        let harness = try OpsServerHarness()
        let response = try await OpsTestClient.fetch(port: harness.port, "/healthz")
        #expect(response.status == 200)
        #expect(response.body == "alive\n")
        #expect(response.headers["connection"] == "close")
    }

    @Test("/readyz follows its checks: 200, 503 listing the failing check, 200 again")
    func readyz() async throws {
        let harness = try OpsServerHarness()
        let ready = try await OpsTestClient.fetch(port: harness.port, "/readyz")
        #expect(ready.status == 200)
        #expect(ready.body == "ready\nok store\nok migrations\n")

        harness.storeReachable.set(false)
        let notReady = try await OpsTestClient.fetch(port: harness.port, "/readyz")
        #expect(notReady.status == 503)
        #expect(notReady.body == "not ready\nfailing store: cannot connect to PostgreSQL\nok migrations\n")

        harness.storeReachable.set(true)
        #expect(try await OpsTestClient.fetch(port: harness.port, "/readyz").status == 200)
    }

    @Test("/metrics serves the Prometheus text format that parses back")
    func metrics() async throws {
        let harness = try OpsServerHarness()
        harness.metrics.claims.labels(ClaimOutcome.replaced).increment(by: 3)
        harness.metrics.relayedCommandDuration.unlabeled.observe(Duration.seconds(2))
        let response = try await OpsTestClient.fetch(port: harness.port, "/metrics")
        #expect(response.status == 200)
        #expect(response.headers["content-type"] == PrometheusText.contentType)
        let parsed = try PrometheusTextReader(response.body)
        #expect(parsed.value("reader_gateway_claims_total", ["outcome": "replaced"]) == 3)
        #expect(parsed.value("reader_gateway_relayed_command_duration_seconds_bucket", ["le": "2.5"]) == 1)
        #expect(parsed.value("reader_gateway_relayed_command_duration_seconds_bucket", ["le": "1"]) == 0)
    }

    @Test("a client that half-closes after its request still gets the response")
    func halfClose() async throws {
        let harness = try OpsServerHarness()
        let port = harness.port
        let response = try await onOwnThread {
            let client = try OpsTestClient(port: port)
            client.send("GET /healthz HTTP/1.0\r\n\r\n")
            client.finishSending()
            return try OpsTestClient.parse(client.readToEnd())
        }
        #expect(response.status == 200)
    }

    @Test("a client that closes mid-request is dropped quietly and the server keeps serving")
    func abandonedRequest() async throws {
        let harness = try OpsServerHarness()
        let port = harness.port
        let answer = try await onOwnThread {
            let client = try OpsTestClient(port: port)
            client.send("GET /heal")
            client.finishSending()
            return try client.readToEnd()
        }
        #expect(answer.isEmpty)
        #expect(try await OpsTestClient.fetch(port: port, "/healthz").status == 200)
    }

    @Test("HEAD gets the headers of GET and no body")
    func head() async throws {
        let harness = try OpsServerHarness()
        let response = try await OpsTestClient.fetch(port: harness.port, "/healthz", method: "HEAD")
        #expect(response.status == 200)
        #expect(response.headers["content-length"] == "6")
        #expect(response.body.isEmpty)
    }

    @Test("bad input: 405, 404, 400, 505, 431, each then closed", arguments: [
        ("POST /metrics HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\n\r\n", 405),
        ("DELETE /healthz HTTP/1.1\r\nHost: a\r\n\r\n", 405),
        ("GET /admin HTTP/1.1\r\nHost: a\r\n\r\n", 404),
        ("GET /metrics HTTP/1.1\r\n\r\n", 400),
        ("this is not http\r\n\r\n", 400),
        ("GET /metrics HTTP/1.1\r\nHost: a\r\nBad Header: x\r\n\r\n", 400),
        ("GET /metrics HTTP/3.0\r\n\r\n", 505),
        ("GET /metrics HTTP/1.1\r\nHost: a\r\nX-Pad: " + String(repeating: "p", count: 20_000) + "\r\n\r\n", 431),
    ])
    func badInput(request: String, expected: Int) async throws {
        let harness = try OpsServerHarness()
        let response = try await OpsTestClient.exchange(port: harness.port, request)
        #expect(response.status == expected)
        #expect(response.headers["connection"] == "close")
        if expected == 405 { #expect(response.headers["allow"] == "GET, HEAD") }
    }

    @Test("a client that never finishes its request gets 408 and is closed at the deadline")
    func slowClient() async throws {
        let harness = try OpsServerHarness { $0.requestDeadline = .milliseconds(300) }
        let port = harness.port
        let (response, elapsed) = try await onOwnThread { () throws -> (OpsTestClient.Response, Duration) in
            let client = try OpsTestClient(port: port)
            let start = ContinuousClock.now
            client.send("GET /metrics HTTP/1.1\r\nHost: a\r\n")
            return (try OpsTestClient.parse(client.readToEnd()), ContinuousClock.now - start)
        }
        // 408 is the server's own answer at its deadline (the client's receive timeout would
        // have ended the read with an error, not a response).
        #expect(response.status == 408)
        #expect(elapsed >= .milliseconds(250))
    }

    @Test("at the cap a new request is served: the oldest connection still sending its request makes room")
    func connectionCap() async throws {
        let harness = try OpsServerHarness { $0.maxConnections = 2 }
        let port = harness.port
        let (idle, response) = try await onOwnThread { () throws -> ([OpsTestClient], OpsTestClient.Response) in
            // Two connections that never send a request hold the whole cap...
            let idle = try (0..<2).map { _ in try OpsTestClient(port: port) }
            // ...and a probe, accepted after them, is served all the same.
            return (idle, try OpsTestClient.get(port: port, "/healthz"))
        }
        #expect(response.status == 200)
        // The oldest silent connection was closed without an answer; the newer one is still open.
        #expect(try await onOwnThread { try idle[0].readToEnd() } == [])
        #expect(!idle[1].isClosedByServer)
        withExtendedLifetime(idle) {}
    }

    @Test("a flood of 2,000 silent connections from ten addresses does not keep a probe out")
    func probeDuringAFlood() async throws {
        let harness = try OpsServerHarness()
        let flood = try await LoggedProcess.start(
            PackageExecutables.path("transport-flood"),
            ["--port", String(harness.port), "--silent", "2000", "--sources", "10", "--first-source", "127.0.0.2",
             "--reopen-per-second", "2000", "--seconds", "300"],
            logPath: NSTemporaryDirectory() + "ops-flood-\(getpid())-\(harness.port).log"
        )
        #expect(await flood.waitForLine(containing: "ready ", timeout: .seconds(120)) != nil, "\(flood.tail(5))")
        let port = harness.port
        let statuses = try await onOwnThread { try (0..<5).map { _ in try OpsTestClient.get(port: port, "/healthz").status } }
        #expect(statuses == [200, 200, 200, 200, 200])
        #expect(flood.process.poll() == nil, "the flood ended early: \(flood.tail(5))")
        #expect(await flood.stop() == 0)
        let done = try #require(flood.output.split(separator: "\n").last { $0.hasPrefix("done ") }.map(String.init))
        #expect(Int(LoggedProcess.field("closed_by_server", in: done) ?? "") ?? 0 > 0, "\(done)")
        try? FileManager.default.removeItem(atPath: flood.logPath)
    }

    @Test("stop closes the listener: nothing answers on its address any more; a second start is refused")
    func stop() async throws {
        let harness = try OpsServerHarness { $0.host = "127.0.0.231" }
        let port = harness.port
        harness.server.stop()
        // A connection may still complete for a moment (a child process another test is
        // forking holds a copy of every descriptor until it execs), but no one answers it.
        let answer = await onOwnThread { () -> OpsTestClient.Response? in
            guard let client = try? OpsTestClient(port: port, host: 0x7F00_00E7, receiveTimeoutSeconds: 5) else { return nil }
            client.send("GET /healthz HTTP/1.1\r\nHost: a\r\n\r\n")
            return (try? client.readToEnd()).flatMap { try? OpsTestClient.parse($0) }
        }
        #expect(answer == nil, "the stopped endpoint answered \(String(describing: answer?.status))")
        #expect(throws: OpsServerError.self) { try harness.server.start() }
    }

    @Test("a port in use is reported with the errno")
    func portInUse() throws {
        let first = try OpsServerHarness()
        let second = OpsServer(
            configuration: OpsServerConfiguration(host: "127.0.0.1", port: first.port),
            router: OpsRouter(collection: MetricsCollection(), readinessChecks: [])
        )
        do {
            try second.start()
            Issue.record("bound a port that is in use")
        } catch {
            #expect(error.code == .bindFailed)
            #expect(error.systemError == EADDRINUSE)
        }
    }
}
