import Foundation
import GatewayCore
import GatewayDomain
import GatewayOperations
import GatewayPostgres
import GatewayRepositories
@testable import GatewayService
import GatewayTestKit
import GatewayTestSupport
import GatewayTransport
import Testing

/// Webhook deliveries end to end on one replica's worker: a real HTTPS receiver process (the
/// test's CA), real PostgreSQL, the worker's own claims, retries and signatures; the signature
/// checked here and by the verifier PROTOCOL.md section 23 documents, run as written.
@Suite("Webhook deliveries")
struct WebhookDeliveryTests {
    static let account = "acct_webhooks"
    static let protocolDocument = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../../proto/PROTOCOL.md").standardizedFileURL.path

    /// A database with the account, a receiver, and a worker delivering with fast retries.
    static func withDelivery(
        replica: String = "node-test",
        configure: (inout WebhookDeliveryConfiguration) -> Void = { _ in },
        _ body: (PostgresClient, WebhookReceiver, WebhookDeliveryWorker) async throws -> Void
    ) async throws {
        try await withWorker(replica: replica, configure: configure) { client, receiver, worker, _ in
            try await body(client, receiver, worker)
        }
    }

    /// As ``withDelivery(replica:configure:_:)``, with the worker's task handed to `body` (which
    /// may end it, as a shutdown does).
    static func withWorker(
        replica: String = "node-test",
        configure: (inout WebhookDeliveryConfiguration) -> Void = { _ in },
        _ body: (PostgresClient, WebhookReceiver, WebhookDeliveryWorker, Task<Void, Never>) async throws -> Void
    ) async throws {
        let database = try await TestPostgres.database(maximumConnections: 6)
        try await database.client.execute(
            "INSERT INTO accounts (id, name, secret_key_sha256) VALUES ($1, $1, sha256(convert_to($1, 'UTF8')))", [PostgresValue(account)]
        )
        let receiver = try await WebhookReceiver.start()
        let loops = try EventLoopGroup(loopCount: 1)
        let box = EventLoopGroupBox()
        box.set(loops)
        var configuration = WebhookDeliveryConfiguration()
        configuration.allowPrivateAddresses = true
        configuration.trustedCAPath = receiver.caPath
        configuration.retryBase = .milliseconds(20)
        configuration.retryCap = .milliseconds(100)
        configuration.pollInterval = .milliseconds(20)
        configuration.metricsInterval = .milliseconds(50)
        configuration.requestTimeout = .seconds(30)
        configuration.leaseDuration = .seconds(60)
        configure(&configuration)
        let metrics = GatewayMetrics(includeProcessMetrics: false)
        let worker = WebhookDeliveryWorker(
            store: WebhookStore(client: database.client), configuration: configuration, metrics: metrics.webhooks, loops: box, replica: { replica }
        )
        let running = Task { await worker.run() }
        var failure: (any Error)?
        do { try await body(database.client, receiver, worker, running) } catch { failure = error }
        for request in receiver.requests() where request.mode == "hold" { try? receiver.set(request.path, "ok") }
        running.cancel()
        await running.value
        await loops.shutdown()
        await receiver.stop()
        await database.close()
        if let failure { throw failure }
    }

    static func endpoint(_ client: PostgresClient, url: String, events: [String] = ["*"]) async throws -> (WebhookEndpoint, String) {
        try await WebhookStore(client: client).create(
            account: account, url: url, description: "test", enabledEvents: events,
            audit: AuditEntry(accountID: account, action: "CreateWebhookEndpoint", actor: AuditActor(keyID: "key_t", keyName: "t", sourceAddress: "test"))
        )
    }

    @discardableResult
    static func append(_ client: PostgresClient, _ type: String, reader: String?) async throws -> String {
        let rows = try await client.query(
            "SELECT gateway_event_append($1, $2, $3, NULL, jsonb_build_object('object', 'test', 'note', 'naïve \"quoted\"')) AS id",
            [PostgresValue(account), PostgresValue(type), reader.map { PostgresValue($0) }]
        )
        return try #require(try rows.first?.decode(String.self, "id"))
    }

    /// The delivery rows of `event` to `endpoint`: (state, attempts, last_error).
    static func deliveries(_ client: PostgresClient, event: String, endpoint: String) async throws -> [(state: String, attempts: Int, error: String?)] {
        let rows = try await client.query(
            "SELECT state, attempts, last_error FROM webhook_deliveries WHERE event_id = $1 AND endpoint_id = $2 ORDER BY id",
            [PostgresValue(event), PostgresValue(endpoint)]
        )
        var result: [(String, Int, String?)] = []
        for row in rows { result.append((try row.decode(String.self, "state"), Int(try row.decode(Int64.self, "attempts")), try row.decode(String?.self, "last_error"))) }
        return result
    }

    static func delivered(_ client: PostgresClient, event: String, endpoint: String) async throws -> Bool {
        try await deliveries(client, event: event, endpoint: endpoint).first?.state == "delivered"
    }

    /// `t` and `v1` of a signature header.
    static func fields(_ header: String) -> [String: String] {
        Dictionary(header.split(separator: ",").compactMap { part in
            let pair = part.split(separator: "=", maxSplits: 1)
            return pair.count == 2 ? (String(pair[0]), String(pair[1])) : nil
        }, uniquingKeysWith: { first, _ in first })
    }

    /// The first Python block of PROTOCOL.md's "Verifying a delivery", as written.
    static func documentedVerifier() throws -> String {
        let text = try String(contentsOfFile: protocolDocument, encoding: .utf8)
        let section = try #require(text.range(of: "### Verifying a delivery"))
        let rest = text[section.upperBound...]
        let start = try #require(rest.range(of: "```python\n"))
        let end = try #require(rest[start.upperBound...].range(of: "```"))
        return String(rest[start.upperBound..<end.lowerBound])
    }

    /// Runs the documented `verify` on each (secret, header, body) case; its answers.
    static func runDocumentedVerifier(_ cases: [(secret: String, header: String, body: [UInt8])]) async throws -> [Bool] {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("webhook-verifier-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try documentedVerifier().write(toFile: directory + "/verifier.py", atomically: true, encoding: .utf8)
        let encoded = cases.map { ["secret": $0.secret, "header": $0.header, "body": Data($0.body).base64EncodedString()] }
        try JSONSerialization.data(withJSONObject: encoded).write(to: URL(fileURLWithPath: directory + "/cases.json"))
        let driver = """
            import base64, json, sys
            sys.path.insert(0, sys.argv[1])
            from verifier import verify
            cases = json.load(open(sys.argv[1] + "/cases.json"))
            print("answers=" + ",".join(str(verify(c["secret"], c["header"], base64.b64decode(c["body"]))) for c in cases))
            """
        try driver.write(toFile: directory + "/driver.py", atomically: true, encoding: .utf8)
        let (status, output) = try await LoggedProcess.run("/usr/bin/python3", [directory + "/driver.py", directory], logPath: directory + "/driver.log")
        #expect(status == 0, "\(output)")
        let line = try #require(output.split(separator: "\n").first { $0.hasPrefix("answers=") }, "\(output)")
        return line.dropFirst("answers=".count).split(separator: ",").map { $0 == "True" }
    }

    @Test("a failing endpoint gets the same event id on every attempt until it answers 2xx; each signature verifies here and in the documented verifier, which refuses a tampered body and an old timestamp")
    func retriedSignedAndVerified() async throws {
        try await Self.withDelivery { client, receiver, worker in
            try receiver.set("/hook", "fail")
            let (endpoint, secret) = try await Self.endpoint(client, url: receiver.url("/hook"))
            let event = try await Self.append(client, "reader.online", reader: "tmr_1")
            #expect(await eventually { receiver.requests("/hook").count >= 3 }, "\(receiver.requests().count) requests")
            // The queue's gauges see the delivery pending and failing.
            #expect(await eventually { worker.metrics.pending.value(endpoint.id) == 1 && (worker.metrics.oldestPendingSeconds.value(endpoint.id) ?? 0) > 0 })
            try receiver.set("/hook", "ok")
            #expect(try await eventually { try await Self.delivered(client, event: event, endpoint: endpoint.id) })
            let requests = receiver.requests("/hook")
            #expect(requests.count >= 4 && requests.last?.mode == "ok")
            #expect(requests.allSatisfy { $0.eventID == event && $0.contentType == "application/json" }, "\(requests.map(\.eventID))")
            let rows = try await Self.deliveries(client, event: event, endpoint: endpoint.id)
            #expect(rows.count == 1 && rows[0].attempts == requests.count, "\(rows)")
            #expect(worker.metrics.delivered.value(endpoint.id) == 1)
            #expect(await eventually { worker.metrics.pending.value(endpoint.id) == 0 && worker.metrics.retrying.value(endpoint.id) == 0 })
            #expect((worker.metrics.failedAttempts.value(endpoint.id) ?? 0) == Double(requests.count - 1))

            for request in requests {
                let fields = Self.fields(request.signature)
                let timestamp = try #require(fields["t"].flatMap { Int64($0) })
                #expect(abs(timestamp - Int64(Date().timeIntervalSince1970)) < 300)
                #expect(fields["v1"] == HMACSHA256.hex(key: Array(secret.utf8), message: Array("\(timestamp).".utf8) + request.body))
            }
            let body = try #require(requests.last).body
            let object = try #require(try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any])
            #expect(object["type"] as? String == "reader.online" && object["object"] as? String == "event" && object["reader"] as? String == "tmr_1")
            let data = try #require(object["data"] as? [String: Any])
            #expect((data["object"] as? [String: Any])?["note"] as? String == "naïve \"quoted\"")

            var tampered = body
            tampered[tampered.count / 2] ^= 0x01
            let old = WebhookSignature.header(secret: secret, timestamp: Int64(Date().timeIntervalSince1970) - 600, body: body)
            let answers = try await Self.runDocumentedVerifier([
                (secret, try #require(requests.last).signature, body),
                (secret, try #require(requests.last).signature, tampered),
                (secret, old, body),
                ("whsec_another", try #require(requests.last).signature, body),
            ])
            #expect(answers == [true, false, false, false])
        }
    }

    @Test("one reader's events reach an endpoint one at a time in the order written; a held endpoint holds back neither other readers nor other endpoints")
    func readerOrderAndIsolation() async throws {
        try await Self.withDelivery { client, receiver, _ in
            try receiver.set("/held", "hold")
            let (held, _) = try await Self.endpoint(client, url: receiver.url("/held"))
            let (fast, _) = try await Self.endpoint(client, url: receiver.url("/fast"))
            var first: [String] = []
            for type in ["reader.online", "reader.ownership.connected", "reader.ownership.released", "reader.offline"] {
                first.append(try await Self.append(client, type, reader: "tmr_1"))
            }
            let other = try await Self.append(client, "reader.online", reader: "tmr_2")
            let loose = try await Self.append(client, "tap_to_pay.account_blocked", reader: nil)
            // The fast endpoint has everything while the held one has only each reader's first.
            for event in first + [other, loose] {
                #expect(try await eventually { try await Self.delivered(client, event: event, endpoint: fast.id) })
            }
            #expect(await eventually { Set(receiver.requests("/held").compactMap(\.eventID)) == [first[0], other, loose] })
            #expect(receiver.requests("/held").count == 3)
            try receiver.set("/held", "ok")
            for event in first {
                #expect(try await eventually { try await Self.delivered(client, event: event, endpoint: held.id) })
            }
            let order = receiver.requests("/held").compactMap(\.eventID).filter { first.contains($0) }
            #expect(order == first)
            #expect(receiver.requests("/fast").compactMap(\.eventID).filter { first.contains($0) } == first)
        }
    }

    @Test("an endpoint slower than the deadline fails the attempt and gets the same event again")
    func slowerThanTheDeadline() async throws {
        try await Self.withDelivery(configure: { $0.requestTimeout = .milliseconds(500) }) { client, receiver, _ in
            try receiver.set("/slow", "hold")
            let (endpoint, _) = try await Self.endpoint(client, url: receiver.url("/slow"))
            let event = try await Self.append(client, "reader.online", reader: "tmr_1")
            #expect(await eventually { receiver.requests("/slow").count >= 2 })
            let rows = try await Self.deliveries(client, event: event, endpoint: endpoint.id)
            #expect(rows.first?.error?.contains("no answer from localhost") == true || rows.first?.error?.contains("timeout") == true, "\(rows)")
            try receiver.set("/slow", "ok")
            #expect(try await eventually { try await Self.delivered(client, event: event, endpoint: endpoint.id) })
            #expect(receiver.requests("/slow").allSatisfy { $0.eventID == event })
        }
    }

    @Test("a delivery in flight when the replica shuts down is handed back: no failed attempt is recorded and any replica can send it at once")
    func shutdownHandsBack() async throws {
        try await Self.withWorker { client, receiver, _, running in
            try receiver.set("/held", "hold")
            let (endpoint, _) = try await Self.endpoint(client, url: receiver.url("/held"))
            let event = try await Self.append(client, "reader.online", reader: "tmr_1")
            #expect(await eventually { receiver.requests("/held").count == 1 })
            running.cancel()
            await running.value
            let row = try #require(try await client.query(
                "SELECT state, attempts, leased_until IS NULL AS unleased, last_error FROM webhook_deliveries WHERE event_id = $1 AND endpoint_id = $2",
                [PostgresValue(event), PostgresValue(endpoint.id)]
            ).first)
            #expect(try row.decode(String.self, "state") == "pending")
            #expect(try row.decode(Int64.self, "attempts") == 0)
            #expect(try row.decode(Bool.self, "unleased"))
            #expect(try row.decode(String?.self, "last_error") == nil)
            let next = try await WebhookStore(client: client).claim(endpoint: endpoint.id, limit: 1, leaseMs: 60_000, replica: "node-next")
            #expect(next.map(\.event.id) == [event] && next.first?.attempt == 1)
        }
    }

    @Test("while deliveries cannot be claimed the worker logs the first failed round only and counts them all; the first good round says how many failed")
    func claimFailuresAreLoggedOncePerStreak() async throws {
        let replica = "node-outage-\(UInt32.random(in: 0...UInt32.max))"
        let capture = LogCapture()
        LoggingSystem.shared.startCapturing(capture)
        defer { LoggingSystem.shared.stopCapturing(capture) }
        try await Self.withDelivery(replica: replica) { client, receiver, worker in
            let (endpoint, _) = try await Self.endpoint(client, url: receiver.url("/after"))
            let failures = worker.metrics.claimFailures.unlabeled
            try await client.execute("ALTER TABLE webhook_deliveries RENAME TO webhook_deliveries_away")
            #expect(await eventually { failures.value >= 5 })
            try await client.execute("ALTER TABLE webhook_deliveries_away RENAME TO webhook_deliveries")
            let event = try await Self.append(client, "reader.online", reader: "tmr_1")
            #expect(try await eventually { try await Self.delivered(client, event: event, endpoint: endpoint.id) })
            let lines = capture.all.filter { $0.contains("replica=\(replica)") }
            #expect(lines.filter { $0.contains("cannot claim webhook deliveries") }.count == 1, "\(lines)")
            let recovered = lines.filter { $0.contains("webhook deliveries can be claimed again") }
            #expect(recovered.count == 1, "\(lines)")
            let counted = recovered.first.flatMap { line in
                line.split(whereSeparator: \.isWhitespace).first { $0.hasPrefix("failed_rounds=") }.flatMap { UInt64($0.dropFirst("failed_rounds=".count)) }
            }
            #expect(counted == failures.value, "\(recovered)")
        }
    }

    static func sample(url: String) -> WebhookDelivery {
        WebhookDelivery(
            id: 1, endpointID: "we_test", url: url, secret: "whsec_test",
            event: EventRecord(seq: 1, id: "evt_test", accountID: account, type: "reader.online", readerID: nil, locationID: nil, createdUnixMs: 0, objectJSON: "{}"),
            attempt: 1, queuedUnixMs: 0
        )
    }

    /// A sender whose request timeout is the suite's hang detector: these tests are about how
    /// an attempt ends (delivered, refused, untrusted), not how soon; with 10 s, the first
    /// handshake of a test started beside the whole suite at full width ran out of time.
    static func sender(caPath: String?, policy: WebhookAddressPolicy) throws -> WebhookSender {
        WebhookSender(post: HTTPSPost(context: try TLSContext(client: TLSClientConfiguration(trustedCAPath: caPath)), timeout: outcomeDeadline), policy: policy)
    }

    @Test("refused connections, a connection closed unanswered, an untrusted certificate and a certificate for another name each fail the attempt, saying which")
    func failuresSayWhat() async throws {
        let receiver = try await WebhookReceiver.start()
        let loops = try EventLoopGroup(loopCount: 1)
        do {
            let loop = loops.next()
            let trusted = try Self.sender(caPath: receiver.caPath, policy: .allowPrivate)
            let first = await trusted.send(Self.sample(url: receiver.url("/ok")), timestamp: 1, on: loop)
            #expect(first == .delivered(status: 204), "\(first)")
            try receiver.set("/closed", "close")
            guard case .failed(nil, let closed) = await trusted.send(Self.sample(url: receiver.url("/closed")), timestamp: 1, on: loop) else {
                Issue.record("a connection closed without an answer delivered")
                return
            }
            #expect(closed.contains("closed the connection before answering"), "\(closed)")
            try receiver.set("/error", "fail")
            #expect(await trusted.send(Self.sample(url: receiver.url("/error")), timestamp: 1, on: loop) == .failed(status: 500, reason: "the endpoint answered HTTP 500"))
            // Nothing listens on port 1 of loopback.
            guard case .failed(nil, let refused) = await trusted.send(Self.sample(url: "https://localhost:1/"), timestamp: 1, on: loop) else {
                Issue.record("a refused connection delivered")
                return
            }
            #expect(refused.contains("could not connect") || refused.contains("refused"), "\(refused)")
            // The certificate names localhost, not 127.0.0.1.
            guard case .failed(nil, let mismatch) = await trusted.send(Self.sample(url: "https://127.0.0.1:\(receiver.port)/ok"), timestamp: 1, on: loop) else {
                Issue.record("a certificate for another name was accepted")
                return
            }
            #expect(mismatch.contains("certificate") || mismatch.contains("handshake"), "\(mismatch)")
            // The system trust store does not know the test's CA.
            let system = try Self.sender(caPath: nil, policy: .allowPrivate)
            guard case .failed(nil, let untrusted) = await system.send(Self.sample(url: receiver.url("/ok")), timestamp: 1, on: loop) else {
                Issue.record("a certificate from an unknown CA was accepted")
                return
            }
            #expect(untrusted.contains("certificate") || untrusted.contains("handshake"), "\(untrusted)")
            #expect(receiver.requests("/ok").count == 1)
        } catch {
            await loops.shutdown()
            await receiver.stop()
            throw error
        }
        await loops.shutdown()
        await receiver.stop()
    }

    @Test("without --webhook-allow-private-addresses, loopback, private and link-local receivers are refused after resolution, before any connection")
    func ssrfGuard() async throws {
        let receiver = try await WebhookReceiver.start()
        let loops = try EventLoopGroup(loopCount: 1)
        let guarded = try Self.sender(caPath: receiver.caPath, policy: .publicOnly)
        let cases: [(String, String)] = [
            (receiver.url("/ok"), "127.0.0.1 (loopback address)"),
            ("https://127.0.0.1:\(receiver.port)/ok", "loopback address"),
            ("https://[::1]:\(receiver.port)/ok", "::1 (loopback address)"),
            ("https://10.20.30.40/", "10.20.30.40 (private address)"),
            ("https://192.168.0.1:8443/", "private address"),
            ("https://169.254.169.254/latest/meta-data", "169.254.169.254 (link-local address)"),
            ("https://[fd12::1]/", "unique-local address"),
            ("https://0.0.0.0/", "unspecified address"),
            ("https://[::ffff:127.0.0.1]/", "loopback address"),
        ]
        for (url, range) in cases {
            let outcome = await guarded.send(Self.sample(url: url), timestamp: 1, on: loops.next())
            guard case .failed(nil, let reason) = outcome else {
                Issue.record("\(url) was not refused: \(outcome)")
                continue
            }
            #expect(reason.contains("refused to deliver") && reason.contains(range) && reason.contains("--webhook-allow-private-addresses"), "\(url): \(reason)")
        }
        #expect(receiver.requests().isEmpty)
        let allowed = try Self.sender(caPath: receiver.caPath, policy: .allowPrivate)
        #expect(await allowed.send(Self.sample(url: receiver.url("/ok")), timestamp: 1, on: loops.next()) == .delivered(status: 204))
        await loops.shutdown()
        await receiver.stop()
    }
}
