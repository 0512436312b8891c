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

    @Test("a lock held without a pid is taken the moment its holder lets go")
    func takenWhenReleased() async throws {
        try await withDirectory { directory in
            let held = try holdSilently(directory + "/gateway.lock")
            let acquiring = Task { try await DataDirectoryLock.acquire(dataDirectory: directory) }
            close(held)
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
            do throws(StoreError) {
                let lock = try await DataDirectoryLock.acquire(dataDirectory: directory)
                lock.release()
                Issue.record("the lock was taken while another descriptor held it")
            } catch {
                #expect(error.code == .dataDirectoryInUse)
                #expect(error.holder == nil)
            }
        }
    }
}
