import Foundation
import GatewayCore
import Synchronization

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
    /// waited for, up to 3 s, with a blocking `flock` on a thread of its own:
    /// right after a release (which empties the file), a child forked
    /// meanwhile may still hold a copy of the descriptor for the instant before
    /// it closes it, and the blocking `flock` returns the moment that copy goes.
    static func acquire(dataDirectory: String) async throws(StoreError) -> DataDirectoryLock {
        do throws(StoreError) {
            return try tryAcquire(dataDirectory: dataDirectory)
        } catch {
            guard error.code == .dataDirectoryInUse, error.holder == nil else { throw error }
        }
        let attempt = try BlockingLockAttempt(path: dataDirectory + "/gateway.lock")
        if let descriptor = await attempt.acquired(within: .seconds(3)) {
            return claim(path: attempt.path, descriptor: descriptor)
        }
        // Still held after 3 s: a real holder that has not written its pid yet, or one
        // that writes none. Name it if it has by now.
        return try tryAcquire(dataDirectory: dataDirectory)
    }

    private static func tryAcquire(dataDirectory: String) throws(StoreError) -> DataDirectoryLock {
        let path = dataDirectory + "/gateway.lock"
        let descriptor = try openLockFile(path)
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
        return claim(path: path, descriptor: descriptor)
    }

    static func openLockFile(_ path: String) throws(StoreError) -> Int32 {
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw StoreError(
                .embeddedServerFailed, "cannot open the lock file \(path); check the directory's permissions",
                underlying: String(cString: strerror(errno))
            )
        }
        return descriptor
    }

    /// Writes this process's pid into the locked file.
    private static func claim(path: String, descriptor: Int32) -> DataDirectoryLock {
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

/// A blocking `flock(LOCK_EX)` on a thread of its own, waited for with a limit.
///
/// A thread blocked in `flock` cannot be woken, so a wait that gives up abandons the attempt:
/// the thread then closes its descriptor (releasing the lock) as soon as it gets the lock.
final class BlockingLockAttempt: Sendable {
    private enum State {
        case waiting
        case acquired(Int32)
        case taken
        case abandoned
    }

    let path: String
    private let state = Mutex(State.waiting)
    private let done = Latch()

    init(path: String) throws(StoreError) {
        self.path = path
        let descriptor = try DataDirectoryLock.openLockFile(path)
        // The thread holds the attempt until it has the lock (or `flock` failed).
        let thread = Thread { [self] in
            var result: Int32
            repeat { result = flock(descriptor, LOCK_EX) } while result != 0 && errno == EINTR
            let keep = state.withLock { state -> Bool in
                guard case .waiting = state, result == 0 else { return false }
                state = .acquired(descriptor)
                return true
            }
            if !keep { close(descriptor) }
            done.set()
        }
        thread.name = "lock-wait"
        thread.start()
    }

    /// The locked descriptor once the lock is taken within `limit`; nil when the limit passed
    /// (the attempt is then abandoned) or `flock` failed.
    func acquired(within limit: Duration) async -> Int32? {
        _ = await done.wait(atMost: limit)
        return state.withLock { state -> Int32? in
            switch state {
            case .acquired(let descriptor):
                state = .taken
                return descriptor
            case .waiting:
                state = .abandoned
                return nil
            case .taken, .abandoned:
                return nil
            }
        }
    }
}
