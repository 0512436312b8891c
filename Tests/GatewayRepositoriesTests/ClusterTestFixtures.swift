import Foundation
import GatewayDomain
import GatewayPostgres
import GatewayRepositories
import Synchronization
import Testing

/// Rows and clocks the cluster tests set straight in the tables (fixtures only: the code under
/// test goes through ``ClusterStore`` and ``OwnershipStore``).
extension OwnershipFixtures {
    /// Makes a node look silent for `seconds` (its last heartbeat that long ago).
    func ageHeartbeat(_ node: String, seconds: Int) async throws {
        try await client.execute(
            "UPDATE gateway_nodes SET heartbeat_at = now() - make_interval(secs => $2) WHERE node_id = $1",
            [PostgresValue(node), PostgresValue(seconds)]
        )
    }

    /// Makes a detached link look detached for `seconds`.
    func ageDetach(_ reader: ReaderID, seconds: Int) async throws {
        try await client.execute(
            "UPDATE reader_ownership SET link_detached_at = now() - make_interval(secs => $2) WHERE reader_id = $1 AND link_detached_at IS NOT NULL",
            [PostgresValue(reader.rawValue), PostgresValue(seconds)]
        )
    }

    /// The reader's link columns as stored.
    func link(_ reader: ReaderID) async throws -> StoredLink? {
        let rows = try await client.query(
            """
            SELECT o.online, o.link_epoch, o.link_node, o.link_detached_at IS NOT NULL AS detached, r.status
            FROM reader_ownership o JOIN readers r ON r.id = o.reader_id WHERE o.reader_id = $1
            """,
            [PostgresValue(reader.rawValue)]
        )
        return try rows.first.map { row in
            StoredLink(
                online: try row.decode(Bool.self, "online"),
                epoch: try row.decode(Int64.self, "link_epoch"),
                node: try row.decode(String?.self, "link_node"),
                detached: try row.decode(Bool.self, "detached"),
                status: try row.decode(String.self, "status")
            )
        }
    }

    struct StoredLink: Hashable, Sendable {
        var online: Bool
        var epoch: Int64
        var node: String?
        var detached: Bool
        /// `readers.status`.
        var status: String
    }

    /// Registers a reader, opens a session for `owner` and makes it the owner, with the link
    /// attached on `node`. Returns the owner's generation.
    @discardableResult
    func ownedReader(_ reader: ReaderID, owner: ReaderOwner, node: String, store: OwnershipStore) async throws -> OwnershipGeneration {
        try await registerReader(reader)
        try await openSession(owner.session, lane: owner.lane)
        _ = try await store.readerAttached(reader, node: node)
        let result = try await store.claim(reader, ConnectRequest(session: owner.session, lane: owner.lane))
        guard case .granted(_, let generation, _) = result else {
            Issue.record("the fixture's claim was refused: \(result)")
            return .initial
        }
        return generation
    }
}

/// Collects what a LISTEN stream yields, for waiting on conditions with a deadline.
final class NotificationCollector: Sendable {
    private final class Received: Sendable {
        let list = Mutex<[PostgresNotification]>([])
    }

    private let received: Received
    private let consumer: Task<Void, Never>

    init(_ stream: AsyncStream<PostgresNotification>) {
        let received = Received()
        self.received = received
        consumer = Task {
            for await notification in stream { received.list.withLock { $0.append(notification) } }
        }
    }

    var all: [PostgresNotification] { received.list.withLock { $0 } }

    /// Waits until `condition` holds for what arrived (checked every 10 ms, at most `timeout`).
    @discardableResult
    func wait(timeout: Duration = .seconds(10), until condition: ([PostgresNotification]) -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + timeout
        for _ in 0..<100_000 {
            if condition(all) { return true }
            if ContinuousClock.now >= deadline { return false }
            try await Task.sleep(for: .milliseconds(10))
        }
        return condition(all)
    }

    func stop() { consumer.cancel() }
}
