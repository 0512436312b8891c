import Foundation

/// The result table: the gateway beside pgbench, with ratios.
struct BenchmarkTable {
    var seconds: Int
    var readers: Int
    var pool: Int
    var rounds: Int
    var rows: [String] = []

    init(seconds: Int, readers: Int, pool: Int, rounds: Int) {
        self.seconds = seconds
        self.readers = readers
        self.pool = pool
        self.rounds = rounds
    }

    static func format(_ value: Double, _ decimals: Int = 0) -> String { String(format: "%.\(decimals)f", value) }

    static func ratio(_ ours: LatencyStats, _ theirs: LatencyStats) -> String {
        theirs.claimsPerSecond > 0 ? format(ours.claimsPerSecond / theirs.claimsPerSecond, 2) + "×" : "-"
    }

    mutating func add(
        clients: Int,
        gateway: LatencyStats,
        gatewayWide: LatencyStats,
        gatewayBatched: LatencyStats,
        pgbenchExtended: LatencyStats,
        pgbenchPrepared: LatencyStats
    ) {
        func cells(_ stats: LatencyStats) -> String {
            "\(Self.format(stats.claimsPerSecond)) | \(Self.format(stats.p50Microseconds)) | \(Self.format(stats.p99Microseconds))"
        }
        rows.append(
            "| \(clients) | \(cells(gateway)) | \(cells(gatewayWide)) | \(cells(gatewayBatched)) | \(cells(pgbenchExtended)) | \(cells(pgbenchPrepared)) "
                + "| \(Self.ratio(gateway, pgbenchExtended)) | \(Self.ratio(gatewayWide, pgbenchExtended)) | \(Self.ratio(gatewayBatched, pgbenchExtended)) "
                + "| \(Self.ratio(gateway, pgbenchPrepared)) |"
        )
    }

    func render() -> String {
        """
        Reader claims: `SELECT * FROM ownership_claim($1…$6)`, one statement (lock, decide, update, append history), \
        \(readers) readers at random, failIfInUse false, one session per claimant, \(seconds) s per measurement, \
        median of \(rounds) interleaved rounds, same server, same run.
        A = OwnershipStore.claim, store client with \(pool) connections (statements pipelined on each);
        B = OwnershipStore.claim, one connection per claimant;
        C = OwnershipClaimBatcher over A's client: concurrent claims on distinct readers share one statement and one commit (`OwnershipStatements.claimBatch`);
        pgbench = the same SQL text with -j 2: `-M extended` (unnamed statements, as the store client sends them) and `-M prepared`.

        | claimants | A claims/s | A p50 µs | A p99 µs | B claims/s | B p50 µs | B p99 µs | C claims/s | C p50 µs | C p99 µs | pgbench claims/s | p50 µs | p99 µs | pgbench prepared claims/s | p50 µs | p99 µs | A / pgbench | B / pgbench | C / pgbench | A / prepared |
        |---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|
        \(rows.joined(separator: "\n"))
        """
    }
}
