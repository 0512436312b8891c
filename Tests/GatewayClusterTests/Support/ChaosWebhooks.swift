import Foundation
import GatewayPostgres
import GatewayTestSupport
import GatewayTransport
import Testing

/// The webhook side of `make chaos-webhooks`: an endpoint of the cluster's account that wants
/// every event, POSTed to the tests' HTTPS receiver (a real process) while replicas are killed
/// and restarted; at the end, what the event log holds against what the receiver heard.
struct ChaosWebhooks: Sendable {
    /// The replicas' options for delivering to `receiver` quickly after a fault: the receiver's
    /// CA, its loopback address allowed, a short lease (a killed replica's claim comes back in
    /// 5 s) and a short first retry.
    static func arguments(_ receiver: WebhookReceiver) -> [String] {
        [
            "--webhook-allow-private-addresses", "--webhook-ca-file", receiver.caPath,
            "--webhook-timeout", "4s", "--webhook-lease", "5s", "--webhook-retry-base", "200ms",
        ]
    }

    static let path = "/chaos"

    let receiver: WebhookReceiver
    let endpointID: String
    let secret: String
    let account: String
    /// The event log's last `seq` when the endpoint was created: its events come after it.
    let startSeq: Int64

    /// Creates the endpoint (every event type) before any reader exists.
    static func subscribe(_ cluster: ClusterFixture, _ receiver: WebhookReceiver) async throws -> ChaosWebhooks {
        let startSeq = try await lastSeq(cluster)
        let created = try await cluster.withAdmin { admin in
            try await admin.createWebhookEndpoint(url: receiver.url(path), events: ["*"], description: "chaos receiver")
        }
        guard let endpoint = created.endpoint?.id else { throw ClusterError("CreateWebhookEndpoint answered no endpoint") }
        return ChaosWebhooks(receiver: receiver, endpointID: endpoint, secret: created.secret, account: cluster.accountID, startSeq: startSeq)
    }

    static func lastSeq(_ cluster: ClusterFixture) async throws -> Int64 {
        try await cluster.database.withClient { client in
            try await client.query("SELECT coalesce(max(seq), 0) AS seq FROM events", []).first?.decode(Int64.self, "seq") ?? 0
        }
    }

    /// What one run heard.
    struct Tally: Sendable, CustomStringConvertible {
        var produced = 0
        var receivedDistinct = 0
        var requests = 0
        var missing: [String] = []
        var unknown: [String] = []
        var duplicates = 0
        var orderViolations: [String] = []
        var readers = 0
        var badSignatures = 0
        /// Events written after the drain's cut (readers settling), received too; not counted above.
        var afterCut = 0
        var givenUp = 0
        var drained: Duration = .zero

        var description: String {
            "chaos webhooks: \(produced) events produced (event log), \(receivedDistinct) received (distinct ids, \(requests) POSTs), "
                + "\(missing.count) missing, \(duplicates) duplicates, \(orderViolations.count) per-reader order violations across \(readers) readers, "
                + "\(badSignatures) bad signatures, \(unknown.count) not in the log, \(givenUp) given up, \(afterCut) more written after the cut; drained \(seconds(drained)) after the load stopped"
        }
    }

    /// Waits until every delivery of the events written so far is finished — as long as the
    /// backlog keeps shrinking, failing when it stood still for `stall` or after `timeout` —
    /// then compares the event log with the receiver's requests.
    func drainAndTally(_ cluster: ClusterFixture, loadStopped: ContinuousClock.Instant, stall: Duration, timeout: Duration) async throws -> Tally {
        let cut = try await Self.lastSeq(cluster)
        let (endpoint, account, start) = (endpointID, self.account, startSeq)
        var (fewest, progressed) = (Int64.max, ContinuousClock.now)
        let drained = await eventuallyIgnoringErrors(timeout: timeout, interval: .milliseconds(250)) {
            let pending = try await cluster.database.withClient { client in
                try await client.query(
                    "SELECT count(*) AS pending FROM webhook_deliveries WHERE endpoint_id = $1 AND state = 'pending' AND event_seq <= $2",
                    [PostgresValue(endpoint), PostgresValue(cut)]
                ).first?.decode(Int64.self, "pending") ?? 0
            }
            if pending < fewest { (fewest, progressed) = (pending, ContinuousClock.now) }
            return pending == 0 || ContinuousClock.now - progressed > stall
        } && fewest == 0
        var tally = Tally()
        tally.drained = ContinuousClock.now - loadStopped
        cluster.expect(drained, "\(fewest) deliveries still pending \(seconds(tally.drained)) after the load stopped (none finished for \(seconds(ContinuousClock.now - progressed)))")

        // The event log: every event of the account since the endpoint, in the order written.
        let logged = try await cluster.database.withClient { client in
            try await client.query(
                """
                SELECT id, seq, reader_id, type, floor(extract(epoch FROM created) * 1000)::bigint AS created_ms
                FROM events WHERE account_id = $1 AND seq > $2 ORDER BY seq
                """,
                [PostgresValue(account), PostgresValue(start)]
            ).map { row in
                LoggedEvent(
                    id: try row.decode(String.self, "id"), seq: try row.decode(Int64.self, "seq"), reader: try row.decode(String?.self, "reader_id"),
                    type: try row.decode(String.self, "type"), createdMs: try row.decode(Int64.self, "created_ms")
                )
            }
        }
        tally.givenUp = try await cluster.database.withClient { client in
            Int(try await client.query(
                "SELECT count(*) AS failed FROM webhook_deliveries WHERE endpoint_id = $1 AND state = 'failed'", [PostgresValue(endpoint)]
            ).first?.decode(Int64.self, "failed") ?? 0)
        }
        let bySeq = Dictionary(logged.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let produced = logged.filter { $0.seq <= cut }
        tally.produced = produced.count

        // The receiver: every POST in arrival order; a reader's events must first arrive in the log's order.
        let requests = receiver.requests(Self.path)
        tally.requests = requests.count
        var seen: Set<String> = []
        var lastOfReader: [String: LoggedEvent] = [:]
        for request in requests {
            if !Self.verifies(request, secret: secret) { tally.badSignatures += 1 }
            guard let id = request.eventID else { tally.unknown.append("(no id)"); continue }
            guard seen.insert(id).inserted else { tally.duplicates += 1; continue }
            guard let event = bySeq[id] else { tally.unknown.append(id); continue }
            guard let reader = event.reader else { continue }
            if let previous = lastOfReader[reader], previous.seq > event.seq {
                tally.orderViolations.append("\(reader): \(event) arrived after \(previous)")
            } else {
                lastOfReader[reader] = event
            }
        }
        let producedIDs = Set(produced.map(\.id))
        tally.receivedDistinct = seen.intersection(producedIDs).count
        tally.afterCut = seen.subtracting(producedIDs).count - tally.unknown.count
        tally.readers = Set(produced.compactMap(\.reader)).count
        tally.missing = produced.map(\.id).filter { !seen.contains($0) }
        return tally
    }

    /// One row of the event log.
    struct LoggedEvent: Sendable, CustomStringConvertible {
        var id: String
        var seq: Int64
        var reader: String?
        var type: String
        var createdMs: Int64

        var description: String { "\(id) (seq \(seq), \(type), created \(createdMs))" }
    }

    /// The documented receiver check (PROTOCOL.md section 23), without the clock.
    static func verifies(_ request: WebhookReceiver.Request, secret: String) -> Bool {
        let fields = Dictionary(request.signature.split(separator: ",").compactMap { part -> (String, String)? in
            let pair = part.split(separator: "=", maxSplits: 1)
            return pair.count == 2 ? (String(pair[0]), String(pair[1])) : nil
        }, uniquingKeysWith: { first, _ in first })
        guard let timestamp = fields["t"], let signature = fields["v1"] else { return false }
        return HMACSHA256.hex(key: Array(secret.utf8), message: Array("\(timestamp).".utf8) + request.body) == signature
    }
}
