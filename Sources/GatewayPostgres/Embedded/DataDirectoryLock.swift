import Foundation

/// An exclusive `flock` on `<data directory>/gateway.lock`, held for as long
/// as the gateway uses the directory. The file holds the holder's pid.
///
/// The kernel drops the lock when the process dies, however it dies, so a
/// free lock with a live postmaster means that postmaster is an orphan.
/// The descriptor is close-on-exec: the server we start does not inherit it.
final class DataDirectoryLock: Sendable {
    let path: String
    private let descriptor: Int32

    private init(path: String, descriptor: Int32) {
        self.path = path
        self.descriptor = descriptor
    }

    /// Takes the lock, or fails with ``StoreError/Code/dataDirectoryInUse`` naming the holder.
    ///
    /// A lock that looks held but names no holder (the file is empty) is
    /// retried for up to 3 s: right after a release (which empties the file),
    /// a child forked meanwhile may still hold a copy of the descriptor for
    /// the instant before it closes it.
    static func acquire(dataDirectory: String) async throws(StoreError) -> DataDirectoryLock {
        let deadline = ContinuousClock.now + .seconds(3)
        while true {
            do throws(StoreError) {
                return try tryAcquire(dataDirectory: dataDirectory)
            } catch {
                guard error.code == .dataDirectoryInUse, error.holder == nil,
                      ContinuousClock.now < deadline
                else { throw error }
                try? await Task.sleep(for: .milliseconds(10))
            }
        }
    }

    private static func tryAcquire(dataDirectory: String) throws(StoreError) -> DataDirectoryLock {
        let path = dataDirectory + "/gateway.lock"
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw StoreError(
                .embeddedServerFailed, "cannot open the lock file \(path); check the directory's permissions",
                underlying: String(cString: strerror(errno))
            )
        }
        if flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            let reason = errno
            var buffer = [UInt8](repeating: 0, count: 64)
            let count = pread(descriptor, &buffer, buffer.count, 0)
            close(descriptor)
            guard reason == EWOULDBLOCK else {
                throw StoreError(.embeddedServerFailed, "cannot lock \(path)", underlying: String(cString: strerror(reason)))
            }
            let text = count > 0 ? String(decoding: buffer[0..<count], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) : ""
            var error = StoreError(
                .dataDirectoryInUse,
                "data directory \(dataDirectory) is in use by reader-gateway pid \(text.isEmpty ? "?" : text); stop that process or give this one another --data-dir"
            )
            error.holder = pid_t(text)
            throw error
        }
        let pid = "\(getpid())\n"
        _ = ftruncate(descriptor, 0)
        _ = pid.withCString { pwrite(descriptor, $0, strlen($0), 0) }
        return DataDirectoryLock(path: path, descriptor: descriptor)
    }

    /// Releases the lock.
    func release() {
        _ = ftruncate(descriptor, 0)
        close(descriptor)
    }
}
