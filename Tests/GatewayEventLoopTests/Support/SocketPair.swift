import CGatewayLinux
import GatewayEventLoop
import Glibc
import Synchronization

/// Two connected, non-blocking stream sockets (`socketpair`): a plain socket for the loop to
/// watch, and its peer for the test to write to. Closes both when dropped.
final class SocketPair: Sendable {
    let watched: Int32
    let peer: Int32

    init() throws {
        var fds: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds) == 0 else {
            throw SocketPairError(errno: errno)
        }
        watched = fds[0]
        peer = fds[1]
    }

    deinit {
        close(watched)
        close(peer)
    }

    /// Writes `bytes` to the peer end (a socket buffer takes a few bytes at once).
    func send(_ bytes: [UInt8]) {
        _ = bytes.withUnsafeBytes { write(peer, $0.baseAddress, $0.count) }
    }
}

struct SocketPairError: Error { let errno: Int32 }

/// A handler that drains its socket on every readiness and records what it read and on which
/// thread. `@unchecked Sendable`: `record` is a `Mutex`; `fd` and `loop` are immutable.
final class RecordingReader: EventLoopSelectable, @unchecked Sendable {
    struct Record {
        var bytes: [UInt8] = []
        var events = 0
        var offLoopCalls = 0
        var waiter: (count: Int, continuation: CheckedContinuation<[UInt8], Never>)?
    }

    let fd: Int32
    let loop: EventLoop
    let record = Mutex(Record())

    init(fd: Int32, loop: EventLoop) {
        self.fd = fd
        self.loop = loop
    }

    func handleEvents(_ events: UInt32) {
        let onLoop = loop.inEventLoop
        var chunk = [UInt8](repeating: 0, count: 256)
        var read: [UInt8] = []
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count <= 0 { break }
            read += chunk[0..<count]
        }
        let ready = record.withLock { record -> (CheckedContinuation<[UInt8], Never>, [UInt8])? in
            record.events += 1
            if !onLoop { record.offLoopCalls += 1 }
            record.bytes += read
            guard let waiter = record.waiter, record.bytes.count >= waiter.count else { return nil }
            record.waiter = nil
            return (waiter.continuation, record.bytes)
        }
        if let (continuation, bytes) = ready { continuation.resume(returning: bytes) }
    }

    /// Waits until at least `count` bytes were read; returns them all.
    func bytes(atLeast count: Int) async -> [UInt8] {
        await withCheckedContinuation { continuation in
            let now = record.withLock { record -> [UInt8]? in
                if record.bytes.count >= count { return record.bytes }
                record.waiter = (count, continuation)
                return nil
            }
            if let now { continuation.resume(returning: now) }
        }
    }

    var snapshot: (bytes: [UInt8], events: Int, offLoopCalls: Int) {
        record.withLock { ($0.bytes, $0.events, $0.offLoopCalls) }
    }
}

extension EventLoop {
    /// Runs `work` on the loop and returns its result.
    func submit<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            execute { continuation.resume(returning: work()) }
        }
    }
}

/// A value behind a lock, shareable with the closures a loop runs.
final class Locked<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>

    init(_ value: Value) { mutex = Mutex(value) }

    func withLock<R: Sendable>(_ body: (inout Value) -> R) -> R { mutex.withLock { body(&$0) } }
}
