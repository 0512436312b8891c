import Glibc

/// Monotonic nanoseconds.
func monotonicNanoseconds() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
}

/// Per-loop counters, touched only on their loop's thread while the run lasts and read by the
/// main thread after the loops were stopped (`@unchecked Sendable` for that hand-over).
final class LoopStatistics: @unchecked Sendable {
    var roundTrips = 0
    var latencies: [UInt32] = []
    var handshakes = 0
    var resumed = 0
    var failures = 0
    var opened = 0
    var lastFailure: String?

    init() { latencies.reserveCapacity(1 << 20) }
}

/// CPU seconds (user + system) and resident memory of other processes, from /proc.
enum ProcessProbe {
    static let ticksPerSecond = Double(sysconf(Int32(_SC_CLK_TCK)))

    static func cpuSeconds(_ pids: [Int32]) -> Double {
        var total = 0.0
        for pid in pids {
            guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                  let close = text.lastIndex(of: ")") else { continue }
            let fields = text[text.index(after: close)...].split(separator: " ")
            // Fields after the command: state is [0], utime [11], stime [12].
            if fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) {
                total += (user + system) / ticksPerSecond
            }
        }
        return total
    }

    static func residentKiB(_ pids: [Int32]) -> Int {
        var total = 0
        for pid in pids {
            guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { continue }
            for line in text.split(separator: "\n") where line.hasPrefix("VmRSS:") {
                total += Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "0") ?? 0
            }
        }
        return total
    }

    static func ownCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
            + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
    }
}

func percentile(_ sorted: [UInt32], _ fraction: Double) -> Double {
    guard !sorted.isEmpty else { return 0 }
    let index = min(sorted.count - 1, Int(Double(sorted.count) * fraction))
    return Double(sorted[index]) / 1_000
}
