import CGatewayLinux
import Foundation
import GatewayCore
import Synchronization

/// A child process started with fork and exec (see `rg_spawn`): clean signal
/// mask, own session, optional credentials, optional parent-death signal.
///
/// Children are spawned from one thread that lives as long as the process,
/// because the kernel sends the parent-death signal when the *thread* that
/// forked the child exits, and Swift's cooperative threads may come and go.
///
/// Each child has a reaper: a thread of its own blocked in `waitpid` until the
/// child exits, which then records the status, sets ``exited`` and makes
/// ``exitDescriptor`` readable. Waiting for a child is waiting on that latch,
/// or on that descriptor beside others; nothing polls.
public final class ChildProcess: Sendable {
    /// The child's process id.
    public let pid: pid_t
    /// What the process is, for messages.
    public let name: String
    private let exitStatus = Mutex<Int32?>(nil)
    /// Set by the reaper once the child has exited and ``poll()`` has its status.
    private let exited = Latch()
    /// An eventfd that turns readable (and stays so) once the child has exited and ``poll()``
    /// has its status: wait on it beside other descriptors (`poll(2)`); never read it. -1 if
    /// no eventfd could be created (then wait on ``wait(timeout:)``).
    let exitDescriptor: Int32

    private init(pid: pid_t, name: String) {
        self.pid = pid
        self.name = name
        self.exitDescriptor = rg_eventfd(0)
        // The reaper holds the object until the child exits (then the status is in place).
        let reaper = Thread { [self] in
            var code: Int32 = 0
            let reaped = rg_waitpid_blocking(pid, &code)
            exitStatus.withLock { $0 = reaped == pid ? code : -1 }
            exited.set()
            if exitDescriptor >= 0 { _ = rg_eventfd_write(exitDescriptor, 1) }
        }
        reaper.name = "reap-\(name)"
        reaper.start()
    }

    deinit {
        if exitDescriptor >= 0 { close(exitDescriptor) }
    }

    /// An unprivileged account to run a child as.
    public struct User: Sendable, Equatable {
        public var name: String
        public var uid: uid_t
        public var gid: gid_t

        /// Looks an account up by name.
        public static func named(_ name: String) -> User? {
            guard let entry = getpwnam(name) else { return nil }
            return User(name: name, uid: entry.pointee.pw_uid, gid: entry.pointee.pw_gid)
        }
    }

    /// Starts `executable` with `arguments`.
    ///
    /// - Parameters:
    ///   - input: the child's standard input (-1: /dev/null).
    ///   - output: a descriptor that receives standard output, and standard error unless
    ///     `errorOutput` is given (-1 keeps the parent's).
    ///   - errorOutput: a descriptor for standard error alone (-1: as `output`).
    ///   - user: run as this account (needs root).
    ///   - parentDeathSignal: sent to the child when this process dies (0: none).
    public static func spawn(
        _ executable: String,
        _ arguments: [String],
        environment: [String],
        input: Int32 = -1,
        output: Int32 = -1,
        errorOutput: Int32 = -1,
        user: User? = nil,
        parentDeathSignal: Int32 = 0
    ) async throws(StoreError) -> ChildProcess {
        let name = (executable as NSString).lastPathComponent
        let result: Result<pid_t, StoreError> = await withCheckedContinuation { continuation in
            Launcher.shared.run {
                let argv = [executable] + arguments
                let pid = withCStringArrayMutable(argv) { argvPointer in
                    withCStringArrayMutable(environment) { envPointer in
                        rg_spawn(
                            executable, argvPointer, envPointer, input, output, errorOutput,
                            user.map { Int32(bitPattern: $0.uid) } ?? -1,
                            user.map { Int32(bitPattern: $0.gid) } ?? -1,
                            parentDeathSignal
                        )
                    }
                }
                if pid < 0 {
                    continuation.resume(returning: .failure(StoreError(
                        .embeddedServerFailed, "cannot start \(executable)", underlying: String(cString: strerror(errno))
                    )))
                } else {
                    continuation.resume(returning: .success(pid))
                }
            }
        }
        return ChildProcess(pid: try result.get(), name: name)
    }

    /// The exit status (or 128 + signal) once the child has exited; nil while it runs.
    public func poll() -> Int32? {
        exitStatus.withLock { $0 }
    }

    /// Waits until the child exits or `timeout` passes; nil when it still runs.
    public func wait(timeout: Duration) async -> Int32? {
        _ = await exited.wait(atMost: timeout)
        return poll()
    }

    /// Sends `signal` to the child (ignored once it has exited).
    public func signal(_ signal: Int32) {
        guard poll() == nil else { return }
        kill(pid, signal)
    }

    /// Runs a short command and returns its exit status and output. The output is read on a
    /// thread of its own: a read that blocks until the command ends must not hold one of the
    /// few threads of Swift's cooperative pool meanwhile.
    static func runCapturingOutput(_ executable: String, _ arguments: [String], user: User? = nil) async -> (status: Int32, output: String)? {
        var fds: [Int32] = [-1, -1]
        // Close-on-exec from the start: no child forked meanwhile by another thread keeps a copy.
        guard rg_pipe_cloexec(&fds) == 0 else { return nil }
        let child: ChildProcess
        do {
            child = try await spawn(executable, arguments, environment: ["PATH=/usr/bin:/bin", "LC_ALL=C"], output: fds[1], user: user)
        } catch {
            close(fds[0])
            close(fds[1])
            return nil
        }
        close(fds[1])
        let readEnd = fds[0]
        let bytes = await onThreadOfItsOwn("process-output") { () -> [UInt8] in
            var bytes: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = read(readEnd, &buffer, buffer.count)
                if count < 0, errno == EINTR { continue }
                if count <= 0 { break }
                bytes += buffer[0..<count]
            }
            close(readEnd)
            return bytes
        }
        let status = await child.wait(timeout: .seconds(60)) ?? -1
        return (status, String(decoding: bytes, as: UTF8.self))
    }

    /// The one long-lived thread that forks children.
    final class Launcher: Sendable {
        static let shared = Launcher()
        private let jobs = Mutex<[@Sendable () -> Void]>([])
        private let available = DispatchSemaphore(value: 0)

        private init() {
            let thread = Thread { [self] in
                while true {
                    available.wait()
                    let job = jobs.withLock { $0.isEmpty ? nil : $0.removeFirst() }
                    job?()
                }
            }
            thread.name = "process-launcher"
            thread.start()
        }

        func run(_ job: @escaping @Sendable () -> Void) {
            jobs.withLock { $0.append(job) }
            available.signal()
        }
    }
}

/// Passes strings to C as a NULL-terminated `char *const *`.
func withCStringArrayMutable<R>(_ strings: [String], _ body: (UnsafePointer<UnsafeMutablePointer<CChar>?>) -> R) -> R {
    var copies: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) }
    copies.append(nil)
    defer { for copy in copies { free(copy) } }
    return copies.withUnsafeBufferPointer { body($0.baseAddress!) }
}
