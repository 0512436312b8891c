import CGatewayLinux
import Foundation
import GatewayCore
import GatewayEventLoop
import GatewayTestKit
import Synchronization
import Testing

@Suite("Event loop shutdown under load")
struct EventLoopShutdownUnderLoadTests {
    @Test("stopped while four threads hand over tasks, sockets fire every tick and timers spin: the threads end, and every task handed over before the stop ran once, on its loop")
    func stopUnderLoad() async throws {
        let group = try EventLoopGroup(loopCount: 2, threadNamePrefix: "rg-stop-load")
        // On each loop: a socket whose handler never reads (level-triggered, so it is ready
        // every tick) and a timer that reschedules itself with no delay.
        let sockets = try group.loops.map { _ in try SocketPair() }
        for (loop, pair) in zip(group.loops, sockets) {
            pair.send([1])
            let handler = CallbackHandler {}
            #expect(await loop.submit { loop.register(fd: pair.watched, events: RG_EPOLLIN, handler) != nil })
            @Sendable func spin() { loop.schedule(after: .zero) { spin() } }
            loop.execute { spin() }
        }

        let stopping = Locked(false)
        let ran = Locked(0)
        let offLoop = Locked(0)
        let busy = Countdown(2_000)
        let handed = await withTaskGroup(of: (total: Int, beforeStop: Int).self) { threads in
            for thread in 0..<4 {
                threads.addTask {
                    await onOwnThread("test-stop-load-\(thread)") {
                        var total = 0
                        var beforeStop = 0
                        while true {
                            let loop = group.loops[total % group.loops.count]
                            loop.execute {
                                if !loop.inEventLoop { offLoop.withLock { $0 += 1 } }
                                ran.withLock { $0 += 1 }
                                busy.arrive()
                            }
                            total += 1
                            // Read after the hand-over (both under locks): false means it was
                            // queued before the stop was asked for.
                            guard !stopping.withLock({ $0 }) else { return (total, beforeStop) }
                            beforeStop += 1
                        }
                    }
                }
            }
            threads.addTask {
                // Stop once the loops are busy with all of it.
                _ = await busy.wait(atMost: outcomeDeadline)
                stopping.withLock { $0 = true }
                group.requestShutdown()
                return (0, 0)
            }
            return await threads.reduce(into: (total: 0, beforeStop: 0)) {
                $0.total += $1.total
                $0.beforeStop += $1.beforeStop
            }
        }
        let stopped = Latch()
        Task {
            await group.shutdown()
            stopped.set()
        }
        #expect(await stopped.wait(atMost: outcomeDeadline), "the loops did not stop under load")
        // The threads left their loops; they end a moment later.
        #expect(try await eventually { try !EventLoopTests.threadNames().contains { $0.hasPrefix("rg-stop-load") } })
        let ranCount = ran.withLock { $0 }
        #expect(handed.beforeStop > 0)
        #expect(ranCount >= handed.beforeStop, "\(handed.beforeStop - ranCount) tasks handed over before the stop never ran")
        #expect(ranCount <= handed.total)
        #expect(offLoop.withLock { $0 } == 0)
        withExtendedLifetime(sockets) {}
    }

    @Test("timers still pending when a loop stops never run, and what their closures hold is freed")
    func pendingTimersDropped() async throws {
        let group = try EventLoopGroup(loopCount: 1)
        let loop = group.loops[0]
        let ran = Locked(0)
        let tracked = Locked<[WeakBox]>([])
        for _ in 0..<100 {
            await loop.submit {
                let held = Held()
                tracked.withLock { $0.append(WeakBox(held)) }
                // The closure keeps `held` (and, like a connection's timer, the loop) alive.
                loop.schedule(after: .seconds(3_600)) {
                    withExtendedLifetime(held) { ran.withLock { $0 += 1 } }
                    _ = loop.index
                }
            }
        }
        #expect(tracked.withLock { $0.allSatisfy { $0.object != nil } })
        await group.shutdown()
        #expect(ran.withLock { $0 } == 0)
        #expect(tracked.withLock { $0.filter { $0.object != nil }.count } == 0, "closures of dropped timers are still held")
    }
}

/// An object whose life the test watches.
final class Held: Sendable {}

/// A weak reference, to see whether an object was freed. `@unchecked Sendable`: read and
/// written under the lock of the `Locked` that holds it.
final class WeakBox: @unchecked Sendable {
    weak var object: Held?
    init(_ object: Held) { self.object = object }
}
