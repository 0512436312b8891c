import GatewayClient
import GatewayWire
import Testing

/// A store under load: N readers and N lanes, all through the load balancer (so they land
/// round robin on the replicas and come back elsewhere after a fault), lane i owning reader i
/// and working it in a loop.
struct ClusterScene: Sendable {
    var readers: [ClusterReader]
    var readerIDs: [String]
    var lanes: [ClusterLane]
    var loads: [LaneLoad]

    func startLoad() { for load in loads { load.start() } }
    /// Stops every lane's load at once (each within its grace period).
    func stopLoad() async {
        await withTaskGroup(of: Void.self) { group in
            for load in loads { group.addTask { await load.stop() } }
        }
    }

    var lost: [String] { loads.flatMap { $0.snapshot.lost } }
    var completed: Int { loads.reduce(0) { $0 + $1.snapshot.completed.count } }
    var retried: [String: Int] {
        loads.reduce(into: [:]) { total, load in total.merge(load.snapshot.retryable, uniquingKeysWith: +) }
    }
}

extension ClusterFixture {
    /// Attaches `count` readers and opens `count` lanes through the load balancer; lane i
    /// connects to reader i. The load is not started (displays only: see ``LaneLoad``).
    func scene(
        _ count: Int, prefix: String, reconnect: Bool = false, retryWindow: Duration = .seconds(30), displaysOnly: Bool = false
    ) async throws -> ClusterScene {
        let readers = try await attachReaders(count, ports: [balancerPort], prefix: prefix)
        var lanes: [ClusterLane] = []
        var loads: [LaneLoad] = []
        var ids: [String] = []
        for (index, reader) in readers.enumerated() {
            let readerID = try reader.readerID.orThrow("reader \(reader.serial) has no id")
            let lane = try await self.lane("\(prefix) lane \(index + 1)", port: balancerPort)
            let load = LaneLoad(lane: lane, readerID: readerID, location: location, retryWindow: retryWindow, reconnect: reconnect, displaysOnly: displaysOnly)
            let response = try await lane.connect(readerID, location: location, failIfInUse: true)
            load.noteGranted(response.generation)
            ids.append(readerID)
            lanes.append(lane)
            loads.append(load)
        }
        return ClusterScene(readers: readers, readerIDs: ids, lanes: lanes, loads: loads)
    }

    /// How many reader links and open sessions each replica holds, by replica name (links
    /// only once PostgreSQL records their node).
    func placement(_ scene: ClusterScene) async throws -> [String: (links: Int, sessions: Int)] {
        var result: [String: (links: Int, sessions: Int)] = [:]
        for replica in replicas { result[replica.name] = (0, 0) }
        let rows = try await database.ownership()
        for id in scene.readerIDs {
            if let name = replica(ofNode: rows[id]?.node)?.name { result[name]?.links += 1 }
        }
        let sessions = try await database.openSessions()
        for lane in scene.lanes {
            guard let session = lane.sessionID, let node = sessions[session] else { continue }
            if let name = replicas.first(where: { node == $0.name || node.hasPrefix($0.name + "-") })?.name { result[name]?.sessions += 1 }
        }
        return result
    }

    /// The replica holding the most reader links and sessions of `scene`.
    func busiestReplica(_ scene: ClusterScene) async throws -> Replica {
        let placement = try await placement(scene)
        print("cluster: placement \(replicas.map { "\($0.name): \(placement[$0.name]!.links) links, \(placement[$0.name]!.sessions) sessions" }.joined(separator: "; "))")
        return replicas.max { a, b in
            let (pa, pb) = (placement[a.name]!, placement[b.name]!)
            return (min(pa.links, 1) + min(pa.sessions, 1), pa.links + pa.sessions) < (min(pb.links, 1) + min(pb.sessions, 1), pb.links + pb.sessions)
        }!
    }

    /// Where PostgreSQL's owners differ from the scene's lanes (lane i must own reader i).
    func ownerProblems(_ scene: ClusterScene) async throws -> [String] {
        let rows = try await database.ownership()
        var problems: [String] = []
        for (index, id) in scene.readerIDs.enumerated() {
            let lane = scene.lanes[index]
            if rows[id]?.session == nil || rows[id]?.session != lane.sessionID {
                problems.append("\(id) is owned by \(rows[id]?.lane ?? "nobody"), not \(lane.label) (\(String(describing: rows[id])))")
            }
        }
        return problems
    }

    /// Readers that more than one lane believes it owns (the client's own view).
    func doubleOwners(_ scene: ClusterScene) -> [String] {
        var problems: [String] = []
        for id in scene.readerIDs {
            let believers = scene.lanes.filter { $0.terminal.connectedReader?.id == id }
            if believers.count > 1 { problems.append("\(id) is believed owned by \(believers.map(\.label))") }
        }
        return problems
    }

    /// Problems in every reader's history.
    func historyProblems(_ readerIDs: [String]) async throws -> [String] {
        let rows = try await database.ownership()
        var problems: [String] = []
        for id in readerIDs { problems += try await database.historyProblems(id, current: rows[id]) }
        return problems
    }

    /// After a fault under load, with the load stopped: no command lost, no reader that two
    /// lanes believe they own, lane i still owns reader i in PostgreSQL at the generation it
    /// had before `what` (`generations`), and every history (also of `alsoInHistory`) without
    /// gaps.
    func expectNothingChanged(
        _ scene: ClusterScene, generations: [String: Int64], across what: String, alsoInHistory: [String] = [],
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        expect(scene.lost.isEmpty, "commands lost: \(scene.lost)", sourceLocation: sourceLocation)
        expect(doubleOwners(scene).isEmpty, "\(doubleOwners(scene))", sourceLocation: sourceLocation)
        let problems = try await ownerProblems(scene)
        expect(problems.isEmpty, "owners after \(what): \(problems)", sourceLocation: sourceLocation)
        let after = try await database.ownership()
        for id in scene.readerIDs where after[id]?.generation != generations[id] {
            expect(false, "\(id) changed owner across \(what): generation \(generations[id] ?? -1) → \(after[id]?.generation ?? -1)", sourceLocation: sourceLocation)
        }
        let history = try await historyProblems(scene.readerIDs + alsoInHistory)
        expect(history.isEmpty, "history: \(history)", sourceLocation: sourceLocation)
    }

    /// Waits until every reader is attached (and those in `reattaching` attached anew), every
    /// lane completed a command started after `since`, and lane i owns reader i again.
    /// Returns the time from `since` (nil: not within `timeout`).
    func waitForRecovery(_ scene: ClusterScene, since: ContinuousClock.Instant, reattaching: [ClusterReader: Int] = [:], timeout: Duration) async -> Duration? {
        let recovered = await eventuallyIgnoringErrors(timeout: timeout, interval: .milliseconds(100)) {
            guard scene.readers.allSatisfy(\.isAttached) else { return false }
            guard reattaching.allSatisfy({ $0.key.attachments > $0.value }) else { return false }
            guard scene.loads.allSatisfy({ $0.firstCompletion(startedAfter: since) != nil }) else { return false }
            return try await ownerProblems(scene).isEmpty
        }
        guard recovered else { return nil }
        let last = scene.loads.compactMap { $0.firstCompletion(startedAfter: since) }.max() ?? ContinuousClock.now
        return max(last, ContinuousClock.now - .milliseconds(100)) - since
    }

    /// Records an issue with the scene's state when `condition` is false.
    func expect(_ condition: Bool, _ message: @autoclosure () -> String, showing scene: ClusterScene, sourceLocation: SourceLocation = #_sourceLocation) async {
        guard !condition else { return }
        let state = await describe(scene)
        expect(false, message() + ":\n" + state, sourceLocation: sourceLocation)
    }

    /// Like ``expect(_:_:showing:sourceLocation:)`` but throws, ending the test.
    func require(_ condition: Bool, _ message: @autoclosure () -> String, showing scene: ClusterScene, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        guard !condition else { return }
        let state = await describe(scene)
        try require(false, message() + ":\n" + state, sourceLocation: sourceLocation)
    }

    /// A readable state of the scene, for failure messages.
    func describe(_ scene: ClusterScene) async -> String {
        var lines: [String] = []
        let rows = (try? await database.ownership()) ?? [:]
        for (index, reader) in scene.readers.enumerated() {
            let lane = scene.lanes[index]
            let stats = scene.loads[index].snapshot
            lines.append("\(reader.serial): attached=\(reader.isAttached) attachments=\(reader.attachments) ends=\(reader.linkEnds.suffix(2)) row=\(rows[scene.readerIDs[index]].map(String.init(describing:)) ?? "-") | \(lane.label) session=\(lane.sessionID ?? "-") resumes=\(lane.resumes) ended=\(lane.sessionEnded.map(String.init(describing:)) ?? "no") completed=\(stats.completed.count) lost=\(stats.lost.count) in_flight=\(stats.inFlight.map { "\(seconds(ContinuousClock.now - $0)) (\(stats.inFlightCommand ?? "?"))" } ?? "no") last_error=\(stats.lastError ?? "-")")
        }
        return lines.joined(separator: "\n")
    }
}

extension ClusterReader: Hashable {
    static func == (a: ClusterReader, b: ClusterReader) -> Bool { a === b }
    func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

extension Optional {
    func orThrow(_ message: String) throws -> Wrapped {
        guard let value = self else { throw ClusterError(message) }
        return value
    }
}
