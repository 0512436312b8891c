import CGatewayLinux
import Foundation
import Synchronization

/// A fixed set of event loops, one thread each; connections are spread over them.
///
/// The transport's group has one loop per core by default, shared between the server and the
/// clients, and is shut down last. The ops endpoint and the store client each run a group of
/// one loop of their own, so a slow scrape or a busy database never holds up the data path.
public final class EventLoopGroup: Sendable {
    /// The loops, in index order.
    public let loops: [EventLoop]
    private let nextIndex = Atomic<Int>(0)
    private let stopRequested = Atomic<Bool>(false)

    /// Starts `loopCount` loops (default: one per online core).
    ///
    /// Also ignores SIGPIPE for the process: a write to a socket the peer closed must fail with
    /// EPIPE on that connection, not kill the server.
    ///
    /// - Parameters:
    ///   - readBufferSize: the per-loop buffer reads go into (every TLS read decrypts into it).
    ///   - threadNamePrefix: loop threads are named `<prefix>-<index>` (Linux keeps 15 bytes),
    ///     so that tools like `top -H` or `/proc/<pid>/task/*/comm` tell groups apart.
    ///   - logComponent: the `component` field of what the loops log.
    public init(
        loopCount: Int = ProcessInfo.processInfo.activeProcessorCount, readBufferSize: Int = 64 * 1024, threadNamePrefix: String = "rg-loop",
        logComponent: String = "event-loop"
    ) throws(EventLoopError) {
        precondition(loopCount > 0, "an event loop group needs at least one loop")
        rg_ignore_sigpipe()
        var loops: [EventLoop] = []
        for index in 0..<loopCount {
            loops.append(try EventLoop(index: index, readBufferSize: readBufferSize, threadNamePrefix: threadNamePrefix, logComponent: logComponent))
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

    /// Asks every loop to stop after its current tick, without waiting. Callable from any
    /// thread, a loop's own included (a component that finishes on its loop stops it this way).
    public func requestShutdown() {
        guard !stopRequested.exchange(true, ordering: .relaxed) else { return }
        for loop in loops { loop.requestStop() }
    }

    /// Stops every loop and waits for the threads to finish. Close servers first.
    public func shutdown() async {
        requestShutdown()
        for loop in loops {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                DispatchQueue.global().async {
                    loop.waitUntilExited()
                    continuation.resume()
                }
            }
        }
    }

    /// Blocking form of ``shutdown()`` for synchronous contexts (never call it on a loop thread).
    public func syncShutdown() {
        requestShutdown()
        for loop in loops { loop.waitUntilExited() }
    }
}

extension EventLoop {
    /// Blocks until the loop's thread has left ``run()``; any number of callers may wait.
    func waitUntilExited() {
        exited.wait()
        exited.signal()
    }
}
