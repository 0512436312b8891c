import BenchmarkSupport
import Foundation

/// Runs pgbench with the claim statement, rewritten only in how parameters are named.
///
/// pgbench's extended protocol (`-M extended`) sends `:reader`, `:session`, … as bound
/// parameters of an unnamed statement, exactly as the store client's `PQsendQueryParams` does,
/// so both sides run the same SQL text with the same values each time.
struct PgbenchRunner {
    var executable: String
    var connectionString: String
    var readers: Int
    var workDirectory: URL

    func run(clients: Int, seconds: Int, script: String, mode: String) throws -> LatencyStats {
        let scriptURL = workDirectory.appendingPathComponent("claim.pgbench")
        try script.write(to: scriptURL, atomically: true, encoding: .utf8)
        let logDirectory = workDirectory.appendingPathComponent("log-\(mode)-\(clients)")
        try? FileManager.default.removeItem(at: logDirectory)
        try FileManager.default.createDirectory(at: logDirectory, withIntermediateDirectories: true)
        let outputPath = workDirectory.appendingPathComponent("pgbench-\(mode)-\(clients).out").path
        let status = try ChildProcessRunner.run(
            executable,
            [
                "-n", "-c", String(clients), "-j", String(min(2, clients)), "-T", String(seconds), "-M", mode,
                "-f", scriptURL.path, "-l", "--log-prefix", logDirectory.appendingPathComponent("pgbench").path,
                connectionString,
            ],
            outputPath: outputPath
        )
        let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        guard status == 0 else {
            throw BenchmarkError("pgbench exited with \(status): \(text)")
        }
        // Per-transaction log lines: client_id transaction_no time_us script_no epoch epoch_us
        var latencies: [Double] = []
        for file in try FileManager.default.contentsOfDirectory(atPath: logDirectory.path) {
            let log = try String(contentsOfFile: logDirectory.appendingPathComponent(file).path, encoding: .utf8)
            for line in log.split(separator: "\n") {
                let fields = line.split(separator: " ")
                if fields.count >= 3, let micros = Double(fields[2]) { latencies.append(micros) }
            }
        }
        var stats = LatencyStats(latencies: latencies, seconds: Double(seconds))
        // pgbench's own figure excludes connection time; prefer it for the rate.
        if let line = text.split(separator: "\n").first(where: { $0.hasPrefix("tps = ") }),
            let tps = Double(line.dropFirst("tps = ".count).split(separator: " ").first ?? "")
        {
            stats.claims = Int(tps * Double(seconds))
        }
        return stats
    }
}

struct BenchmarkError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
