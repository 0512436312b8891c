import CGatewayLinux
import Foundation
import Synchronization

/// A fixed set of event loops, one thread each; connections are spread over them.
///
/// Create one per process (one loop per core by default), share it between the
/// server and the clients, and shut it down last.
public final class EventLoopGroup: Sendable {
    /// The loops, in index order.
    public let loops: [EventLoop]
    private let nextIndex = Atomic<Int>(0)
    private let stopped = Atomic<Bool>(false)

    /// Starts `loopCount` loops (default: one per online core).
    ///
    /// Also ignores SIGPIPE for the process: a write to a socket the peer closed must fail with
    /// EPIPE on that connection, not kill the server.
    ///
    /// - Parameters:
    ///   - readBufferSize: the per-loop buffer every TLS read decrypts into.
    ///   - threadNamePrefix: loop threads are named `<prefix>-<index>` (Linux keeps 15 bytes),
    ///     so that tools like `top -H` or `/proc/<pid>/task/*/comm` tell groups apart.
    public init(
        loopCount: Int = ProcessInfo.processInfo.activeProcessorCount, readBufferSize: Int = 64 * 1024, threadNamePrefix: String = "rg-loop"
    ) throws {
        precondition(loopCount > 0, "an event loop group needs at least one loop")
        rg_ignore_sigpipe()
        var loops: [EventLoop] = []
        for index in 0..<loopCount {
            loops.append(try EventLoop(index: index, readBufferSize: readBufferSize, threadNamePrefix: threadNamePrefix))
        }
        self.loops = loops
        for loop in loops {
            let thread = Thread { loop.run() }
            thread.stackSize = 1 << 20
            thread.start()
        }
    }

    /// The next loop in round-robin order. Callable from any thread.
    public func next() -> EventLoop {
        let index = nextIndex.wrappingAdd(1, ordering: .relaxed).oldValue
        return loops[index % loops.count]
    }

    /// Stops every loop and waits for the threads to finish. Close servers first.
    public func shutdown() async {
        guard !stopped.exchange(true, ordering: .relaxed) else { return }
        for loop in loops { loop.requestStop() }
        for loop in loops {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                DispatchQueue.global().async {
                    loop.exited.wait()
                    continuation.resume()
                }
            }
        }
    }

    /// Blocking form of ``shutdown()`` for synchronous contexts (never call it on a loop thread).
    public func syncShutdown() {
        guard !stopped.exchange(true, ordering: .relaxed) else { return }
        for loop in loops { loop.requestStop() }
        for loop in loops { loop.exited.wait() }
    }
}
