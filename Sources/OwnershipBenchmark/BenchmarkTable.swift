import Foundation

/// The result table: the gateway beside pgbench, with ratios.
struct BenchmarkTable {
    var seconds: Int
    var readers: Int
    var pool: Int
    var rows: [String] = []

    init(seconds: Int, readers: Int, pool: Int) {
        self.seconds = seconds
        self.readers = readers
        self.pool = pool
    }

    static func format(_ value: Double, _ decimals: Int = 0) -> String { String(format: "%.\(decimals)f", value) }

    mutating func add(clients: Int, gateway: LatencyStats, pgbenchExtended: LatencyStats, pgbenchPrepared: LatencyStats) {
        let ratio = pgbenchExtended.claimsPerSecond > 0 ? gateway.claimsPerSecond / pgbenchExtended.claimsPerSecond : 0
        let ratioPrepared = pgbenchPrepared.claimsPerSecond > 0 ? gateway.claimsPerSecond / pgbenchPrepared.claimsPerSecond : 0
        rows.append(
            "| \(clients) | \(Self.format(gateway.claimsPerSecond)) | \(Self.format(gateway.p50Microseconds)) | \(Self.format(gateway.p99Microseconds)) "
                + "| \(Self.format(pgbenchExtended.claimsPerSecond)) | \(Self.format(pgbenchExtended.p50Microseconds)) | \(Self.format(pgbenchExtended.p99Microseconds)) "
                + "| \(Self.format(pgbenchPrepared.claimsPerSecond)) "
                + "| \(Self.format(ratio, 2))× | \(Self.format(ratioPrepared, 2))× |"
        )
    }

    func render() -> String {
        """
        Reader claims (one statement: lock, decide, update, append history), \(readers) readers, \(seconds) s per cell.
        gateway = OwnershipStore.claim through the store client (\(pool) connections, pipelined);
        pgbench = the same SQL text, `-M extended` (unnamed statements, as the client sends) and `-M prepared`; -j 2.

        | claimants | gateway claims/s | p50 µs | p99 µs | pgbench claims/s | p50 µs | p99 µs | pgbench prepared claims/s | gateway / pgbench | gateway / prepared |
        |---|---|---|---|---|---|---|---|---|---|
        \(rows.joined(separator: "\n"))
        """
    }
}
