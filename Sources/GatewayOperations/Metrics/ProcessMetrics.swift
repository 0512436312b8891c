#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// The standard `process_*` metrics, read from `/proc/self` at scrape time
/// with plain system calls (a scrape stays cheap).
enum ProcessMetrics {
    static func register(in collection: MetricsCollection) {
        let startTime = Date().timeIntervalSince1970
        collection.sampledGauge("process_resident_memory_bytes", help: "Resident memory size in bytes.") {
            residentMemoryBytes()
        }
        collection.sampledGauge("process_open_fds", help: "Number of open file descriptors.") {
            openDescriptors()
        }
        collection.sampledGauge("process_start_time_seconds", help: "Start time of the process since the Unix epoch, in seconds.") {
            startTime
        }
    }

    /// Resident pages (the second field of `/proc/self/statm`) times the page size.
    static func residentMemoryBytes() -> Double {
        let fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return 0 }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 128)
        let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard count > 0 else { return 0 }
        let fields = buffer[0..<count].split(separator: UInt8(ascii: " "))
        guard fields.count > 1, let pages = Double(String(decoding: fields[1], as: UTF8.self)) else { return 0 }
        return pages * Double(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// Entries of `/proc/self/fd`, less the one this count opens.
    static func openDescriptors() -> Double {
        guard let directory = opendir("/proc/self/fd") else { return 0 }
        defer { closedir(directory) }
        var count = 0
        while let entry = readdir(directory) {
            let isDot = withUnsafeBytes(of: entry.pointee.d_name) { name in
                name[0] == UInt8(ascii: ".") && (name[1] == 0 || (name[1] == UInt8(ascii: ".") && name[2] == 0))
            }
            if !isDot { count += 1 }
        }
        return Double(max(0, count - 1))
    }
}
