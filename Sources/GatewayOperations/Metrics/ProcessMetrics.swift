#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// The standard `process_*` metrics, read from `/proc/self` at scrape time.
enum ProcessMetrics {
    static func register(in registry: MetricsRegistry) {
        let startTime = Date().timeIntervalSince1970
        registry.sampledGauge("process_resident_memory_bytes", help: "Resident memory size in bytes.") {
            residentMemoryBytes()
        }
        registry.sampledGauge("process_open_fds", help: "Number of open file descriptors.") {
            Double((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 0)
        }
        registry.sampledGauge("process_start_time_seconds", help: "Start time of the process since the Unix epoch, in seconds.") {
            startTime
        }
    }

    /// Resident pages from `/proc/self/statm` times the page size.
    static func residentMemoryBytes() -> Double {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Double(fields[1]) else { return 0 }
        return pages * Double(sysconf(Int32(_SC_PAGESIZE)))
    }
}
