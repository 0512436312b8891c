import Foundation
import GatewayPostgres

/// What one side of the connect comparison cost beyond its own process: the PostgreSQL
/// server's CPU and the statements it ran.
enum ConnectCosts {
    /// CPU seconds of the PostgreSQL server whose postmaster is `postmaster`: the postmaster, its
    /// live children (backends, background workers) and the children it has reaped (backends of
    /// connections that closed, such as pgbench's), from `/proc`.
    static func postgresCPUSeconds(postmaster: pid_t) -> Double {
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        guard let own = stat(postmaster) else { return 0 }
        // utime, stime, cutime, cstime: fields 14–17 (1-based), 11–14 after the command name.
        var total = own.fields[11...14].reduce(0.0) { $0 + (Double($1) ?? 0) }
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return total / ticks }
        for entry in entries {
            guard let pid = pid_t(entry), pid != postmaster, let child = stat(pid), child.parent == postmaster else { continue }
            total += child.fields[11...12].reduce(0.0) { $0 + (Double($1) ?? 0) }
        }
        return total / ticks
    }

    /// Ownership changes on one location's readers so far: the sum of their generations, which
    /// grows by one with each claim that took a reader (connected or replaced) and not with a
    /// claim by the reader's own owner. Its growth over a round, divided by the claims made, is
    /// the share of claims that were takeovers, on either side of the comparison.
    static func ownershipChanges(_ client: PostgresClient, location: String) async throws -> Int {
        let rows = try await client.query(
            """
            SELECT coalesce(sum(o.generation), 0)::bigint AS changes
            FROM reader_ownership o JOIN readers r ON r.id = o.reader_id WHERE r.location_id = $1
            """,
            [PostgresValue(location)]
        )
        return try rows.first?.decode(Int.self, "changes") ?? 0
    }

    /// The postmaster's pid, from `postmaster.pid` in the cluster directory.
    static func postmasterPID(clusterDirectory: String) -> pid_t? {
        guard let text = try? String(contentsOfFile: clusterDirectory + "/postmaster.pid", encoding: .utf8) else { return nil }
        return text.split(separator: "\n").first.flatMap { pid_t($0.trimmingCharacters(in: .whitespaces)) }
    }

    /// CPU seconds of this process's children that have ended and been waited for (pgbench).
    static func reapedChildrenCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_CHILDREN.rawValue), &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }

    private struct ProcessStat {
        /// The fields after the command name: state is 0, the parent 1, utime 11.
        var fields: [Substring]
        var parent: pid_t { pid_t(fields[1]) ?? 0 }
    }

    private static func stat(_ pid: pid_t) -> ProcessStat? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = text.lastIndex(of: ")")
        else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 14 else { return nil }
        return ProcessStat(fields: fields)
    }
}

/// Statements the server ran, from `pg_stat_statements` (top-level statements: one per round
/// trip of the gateway's store client), when the server loads it
/// (`TEST_POSTGRES_SETTINGS='shared_preload_libraries=pg_stat_statements'`).
struct StatementCounter {
    let client: PostgresClient

    /// Creates the extension in the bench's database; nil when the server does not load it.
    static func make(_ client: PostgresClient) async -> StatementCounter? {
        do {
            try await client.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
            _ = try await client.query("SELECT count(*) FROM pg_stat_statements")
            return StatementCounter(client: client)
        } catch {
            return nil
        }
    }

    /// Calls per statement text in this database so far (the counter's own queries left out).
    func calls() async throws -> [String: Int] {
        let rows = try await client.query(
            """
            SELECT query, sum(calls)::bigint AS calls FROM pg_stat_statements
            WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
              AND query NOT ILIKE '%pg_stat_statements%' AND query NOT ILIKE '%pg_database%'
            GROUP BY query
            """
        )
        var calls: [String: Int] = [:]
        for row in rows { calls[try row.decode(String.self, "query")] = try row.decode(Int.self, "calls") }
        return calls
    }

    /// The calls made between two readings, per statement.
    static func difference(_ after: [String: Int], _ before: [String: Int]) -> [String: Int] {
        var difference: [String: Int] = [:]
        for (query, calls) in after where calls - (before[query] ?? 0) > 0 { difference[query] = calls - (before[query] ?? 0) }
        return difference
    }
}

/// This process's CPU by thread kind, from `/proc/self/task/*/schedstat`: the gateway's loops
/// (`rg-loop-*`), the store thread (`store-*`), the lanes' and readers' loops (`bench-loop-*`),
/// and every other thread (Swift's cooperative pool runs the gateway's handlers and the lanes'
/// client code alike).
struct ThreadCPU {
    var gatewayLoops = 0.0
    var store = 0.0
    var loadLoops = 0.0
    var other = 0.0

    static func sample() -> ThreadCPU {
        var sample = ThreadCPU()
        let tasks = "/proc/self/task"
        guard let threads = try? FileManager.default.contentsOfDirectory(atPath: tasks) else { return sample }
        for thread in threads {
            guard let name = try? String(contentsOfFile: "\(tasks)/\(thread)/comm", encoding: .utf8),
                  let stat = try? String(contentsOfFile: "\(tasks)/\(thread)/schedstat", encoding: .utf8),
                  let nanoseconds = stat.split(separator: " ").first.flatMap({ Double($0) })
            else { continue }
            let seconds = nanoseconds / 1e9
            if name.hasPrefix("rg-loop") {
                sample.gatewayLoops += seconds
            } else if name.hasPrefix("store") {
                sample.store += seconds
            } else if name.hasPrefix("bench-loop") {
                sample.loadLoops += seconds
            } else {
                sample.other += seconds
            }
        }
        return sample
    }

    /// Threads that ended between two samples drop out; the benchmark's threads all live.
    static func - (after: ThreadCPU, before: ThreadCPU) -> ThreadCPU {
        ThreadCPU(
            gatewayLoops: after.gatewayLoops - before.gatewayLoops, store: after.store - before.store,
            loadLoops: after.loadLoops - before.loadLoops, other: after.other - before.other
        )
    }
}
