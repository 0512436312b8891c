import Foundation
@testable import GatewayPostgres
import GatewayTestKit
import Testing

/// The data-directory lock's wait for a holder that names no pid: a blocking `flock` on a
/// thread of its own, not a retry every few milliseconds.
@Suite("DataDirectoryLock")
struct DataDirectoryLockTests {
    /// A fresh directory, removed afterwards.
    private func withDirectory(_ body: (String) async throws -> Void) async throws {
        let directory = NSTemporaryDirectory() + "rg-lock-\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await body(directory)
    }

    /// Takes `path`'s lock the way a forked child's inherited copy holds it: an empty file.
    private func holdSilently(_ path: String) throws -> Int32 {
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        try #require(descriptor >= 0)
        try #require(flock(descriptor, LOCK_EX | LOCK_NB) == 0)
        return descriptor
    }

    /// Whether this process waits in a blocking `flock` on `path`: the kernel lists each such
    /// waiter in /proc/locks, marked `->`, with its pid and the file's device and inode.
    private func waitingForLock(on path: String) throws -> Bool {
        var file = stat()
        try #require(stat(path, &file) == 0, "cannot stat \(path)")
        let device = UInt64(file.st_dev)
        let major = ((device >> 8) & 0xfff) | ((device >> 32) & ~0xfff)
        let minor = (device & 0xff) | ((device >> 12) & ~0xff)
        func twoHexDigits(_ number: UInt64) -> String {
            let digits = String(number, radix: 16)
            return digits.count < 2 ? "0" + digits : digits
        }
        let fileID = "\(twoHexDigits(major)):\(twoHexDigits(minor)):\(file.st_ino)"
        let locks = try String(contentsOfFile: "/proc/locks", encoding: .utf8)
        return locks.split(separator: "\n").contains { line in
            // "1: -> FLOCK  ADVISORY  WRITE <pid> <major>:<minor>:<inode> 0 EOF"
            let fields = line.split(separator: " ")
            return fields.count >= 7 && fields[1] == "->" && fields[2] == "FLOCK"
                && fields[5] == "\(getpid())" && fields[6] == fileID
        }
    }

    @Test("a lock held without a pid is taken the moment its holder lets go")
    func takenWhenReleased() async throws {
        try await withDirectory { directory in
            let path = directory + "/gateway.lock"
            let held = try holdSilently(path)
            let acquiring = Task { try await DataDirectoryLock.acquire(dataDirectory: directory) }
            // The holder lets go only once the acquirer is blocked in its flock.
            let waited = try await eventually { try waitingForLock(on: path) }
            close(held)
            #expect(waited, "the acquirer never waited in a blocking flock on \(path)")
            let lock = try await acquiring.value
            let text = try String(contentsOfFile: lock.path, encoding: .utf8)
            #expect(text == "\(getpid())\n")
            lock.release()
        }
    }

    @Test("an attempt that gives up leaves the lock to its holder, and lets go once it gets it")
    func abandonedAttemptReleases() async throws {
        try await withDirectory { directory in
            let path = directory + "/gateway.lock"
            let held = try holdSilently(path)
            let attempt = try BlockingLockAttempt(path: path)
            #expect(await attempt.acquired(within: .milliseconds(20)) == nil)
            close(held)
            // The abandoned attempt gets the lock now and must close it at once: a blocking
            // flock of our own returns as soon as it has.
            let taken = await onOwnThread { () -> Bool in
                let descriptor = open(path, O_RDWR | O_CLOEXEC)
                defer { close(descriptor) }
                return descriptor >= 0 && flock(descriptor, LOCK_EX) == 0
            }
            #expect(taken)
        }
    }

    @Test("a lock still held without a pid after 3 s is reported in use")
    func reportedInUse() async throws {
        try await withDirectory { directory in
            let held = try holdSilently(directory + "/gateway.lock")
            defer { close(held) }
            let started = ContinuousClock.now
            do throws(StoreError) {
                let lock = try await DataDirectoryLock.acquire(dataDirectory: directory)
                lock.release()
                Issue.record("the lock was taken while another descriptor held it")
            } catch {
                let waited = ContinuousClock.now - started
                #expect(error.code == .dataDirectoryInUse)
                #expect(error.holder == nil)
                #expect(waited >= .seconds(3), "refused after \(waited), without waiting the 3 s for the holder")
            }
        }
    }
}
