import GatewayClient
import GatewayWire
import Synchronization
import Testing

/// What a `WatchFleet` watcher heard: the snapshot, then each reader's latest state.
final class FleetWatchLog: Sendable {
    private struct State: Sendable {
        var snapshotComplete = false
        var readers: [String: ReaderGatewayV1.FleetReader] = [:]
        var removed: [String] = []
        var events = 0
        var ended: String?
    }

    private let state = Mutex(State())

    func record(_ event: ReaderGatewayV1.WatchFleetEvent) {
        state.withLock { state in
            state.events += 1
            switch event.event {
            case .snapshot(let snapshot):
                for reader in snapshot.readers { state.readers[reader.reader?.id ?? ""] = reader }
                if snapshot.complete { state.snapshotComplete = true }
            case .readerChanged(let reader):
                state.readers[reader.reader?.id ?? ""] = reader
            case .readerRemoved(let id):
                state.readers[id] = nil
                state.removed.append(id)
            case nil:
                break
            }
        }
    }

    func ended(_ error: String) { state.withLock { $0.ended = error } }

    var snapshotComplete: Bool { state.withLock { $0.snapshotComplete } }
    func reader(_ id: String) -> ReaderGatewayV1.FleetReader? { state.withLock { $0.readers[id] } }
    var removed: [String] { state.withLock { $0.removed } }
    var readerIDs: Set<String> { state.withLock { Set($0.readers.keys) } }
    var ended: String? { state.withLock { $0.ended } }
}

extension ClusterTests {
    /// A watcher on r2 hears what happens to a reader homed on r1 with its lanes on r1: the
    /// takeovers decided there (local claims, which the ownership trigger does not announce),
    /// a registration and a deletion made on r1, and the reader going offline.
    @Test func watchFleetHearsChangesMadeOnAnotherReplica() async throws {
        var options = ClusterOptions()
        options.replicas = 2
        try await ClusterFixture.run(options) { cluster in
            let (r1, r2) = (cluster.replicas[0], cluster.replicas[1])
            let reader = try await cluster.attachReaders(1, ports: [r1.port], prefix: "WFA")[0]
            let readerID = try #require(reader.readerID)

            let log = FleetWatchLog()
            let watcher = cluster.admin(port: r2.port)
            defer { watcher.connection.close() }
            let watching = Task {
                do {
                    for try await event in try await watcher.watchFleet() { log.record(event) }
                    log.ended("the stream ended")
                } catch {
                    log.ended("\(error)")
                }
            }
            defer { watching.cancel() }

            try cluster.require(await eventuallyIgnoringErrors { log.snapshotComplete }, "no complete snapshot on r2: \(log.ended ?? "")")
            try cluster.require(
                await eventuallyIgnoringErrors { log.reader(readerID)?.reader?.networkStatus == .online },
                "r2's watcher does not show the reader online: \(String(describing: log.reader(readerID)))"
            )

            let laneA = try await cluster.lane("Lane A", port: r1.port)
            let laneB = try await cluster.lane("Lane B", port: r1.port)
            _ = try await laneA.connect(readerID, location: cluster.location, failIfInUse: false)
            try cluster.require(
                await eventuallyIgnoringErrors { log.reader(readerID)?.holder?.laneLabel == "Lane A" },
                "r2's watcher never heard lane A take the reader on r1: \(String(describing: log.reader(readerID)))"
            )
            let heldByA = try #require(log.reader(readerID))
            cluster.expect(heldByA.holderSinceUnixMs > 0, "no holder-since time: \(heldByA)")
            _ = try await laneB.connect(readerID, location: cluster.location, failIfInUse: false)
            try cluster.require(
                await eventuallyIgnoringErrors { log.reader(readerID)?.holder?.laneLabel == "Lane B" },
                "r2's watcher never heard lane B take the reader from lane A on r1: \(String(describing: log.reader(readerID)))"
            )

            let added = try await cluster.withAdmin(port: r1.port) { admin in
                try await admin.registerReaders(serials: ["WFA-NEW"], labelPrefix: "Spare", locationID: cluster.location)
            }
            let addedID = try #require(added.first?.id)
            try cluster.require(
                await eventuallyIgnoringErrors { log.reader(addedID)?.reader?.label == "Spare" },
                "r2's watcher never heard of the reader registered on r1"
            )
            try await cluster.withAdmin(port: r1.port) { admin in try await admin.deleteReader(addedID) }
            try cluster.require(await eventuallyIgnoringErrors { log.removed.contains(addedID) }, "r2's watcher never heard of the deletion on r1")

            reader.stop()
            try cluster.require(
                await eventuallyIgnoringErrors { log.reader(readerID)?.reader?.networkStatus == .offline },
                "r2's watcher does not show the stopped reader offline: \(String(describing: log.reader(readerID)))"
            )
            cluster.expect(log.ended == nil, "the watch ended: \(log.ended ?? "")")
        }
    }
}
