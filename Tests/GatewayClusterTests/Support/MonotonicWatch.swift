import Synchronization

/// Reads the ownership rows every half second and records any generation or link epoch that
/// went back (reads that fail while PostgreSQL is down are skipped).
final class MonotonicWatch: Sendable {
    let cluster: ClusterFixture
    let readerIDs: [String]
    private let state = Mutex<(last: [String: (Int64, Int64)], violations: [String], task: Task<Void, Never>?)>(([:], [], nil))

    init(cluster: ClusterFixture, readerIDs: [String]) {
        self.cluster = cluster
        self.readerIDs = readerIDs
    }

    var violations: [String] { state.withLock { $0.violations } }

    func start() {
        let task = Task { [self] in
            for _ in 0..<1_000_000 {
                if Task.isCancelled { return }
                if cluster.postgres.isRunning, let rows = try? await cluster.database.ownership() { record(rows) }
                try? await Task.sleep(for: .milliseconds(500))
            }
        }
        state.withLock { $0.task = task }
    }

    func stop() async {
        let task = state.withLock { $0.task }
        task?.cancel()
        await task?.value
        if let rows = try? await cluster.database.ownership() { record(rows) }
    }

    private func record(_ rows: [String: OwnershipRow]) {
        state.withLock { state in
            for id in readerIDs {
                guard let row = rows[id] else { continue }
                if let (generation, epoch) = state.last[id] {
                    if row.generation < generation { state.violations.append("\(id): generation \(generation) → \(row.generation)") }
                    if row.epoch < epoch { state.violations.append("\(id): epoch \(epoch) → \(row.epoch)") }
                }
                state.last[id] = (row.generation, row.epoch)
            }
        }
    }
}
