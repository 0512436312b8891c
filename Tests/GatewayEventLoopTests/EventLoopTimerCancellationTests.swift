import Foundation
import GatewayCore
import GatewayEventLoop
import GatewayTestKit
import Testing

@Suite("Event loop timers: cancellation")
struct EventLoopTimerCancellationTests {
    @Test("a timer cancelled from another thread before its deadline never runs")
    func cancelledFromAnotherThread() async throws {
        let group = try EventLoopGroup(loopCount: 1)
        let loop = group.loops[0]
        let ran = Locked<[String]>([])
        let sentinel = Latch()
        await onOwnThread {
            let doomed = loop.schedule(after: .milliseconds(10)) { ran.withLock { $0.append("cancelled") } }
            doomed.cancel()
            // Same delay, scheduled after: its deadline is no earlier than the cancelled one's.
            loop.schedule(after: .milliseconds(10)) {
                ran.withLock { $0.append("sentinel") }
                sentinel.set()
            }
        }
        #expect(await sentinel.wait(atMost: outcomeDeadline))
        #expect(ran.withLock { $0 } == ["sentinel"])
        await group.shutdown()
    }

    @Test("a timer cancelled by the run of an earlier one, both due, never runs")
    func cancelledByAnEarlierTimer() async throws {
        let group = try EventLoopGroup(loopCount: 1)
        let loop = group.loops[0]
        let ran = Locked<[String]>([])
        let sentinel = Latch()
        // Scheduled with no delay by a task: all three are due in the pass over the timers that
        // follows the tasks in the same tick.
        loop.execute {
            let later = Locked<ScheduledTask?>(nil)
            loop.schedule(after: .zero) {
                ran.withLock { $0.append("first") }
                later.withLock { $0 }?.cancel()
            }
            later.withLock { $0 = loop.schedule(after: .zero) { ran.withLock { $0.append("cancelled") } } }
            loop.schedule(after: .zero) {
                ran.withLock { $0.append("sentinel") }
                sentinel.set()
            }
        }
        #expect(await sentinel.wait(atMost: outcomeDeadline))
        #expect(ran.withLock { $0 } == ["first", "sentinel"])
        await group.shutdown()
    }

    @Test("timers cancelled from four threads while the loop is busy: exactly the others run")
    func cancelledInBulk() async throws {
        let group = try EventLoopGroup(loopCount: 1)
        let loop = group.loops[0]
        let count = 2_000
        let ran = Locked<Set<Int>>([])
        let gate = DispatchSemaphore(value: 0)
        // The loop is held in a task: none of the timers can come due before the cancellations.
        loop.execute { gate.wait() }
        let scheduled = (0..<count).map { index in
            loop.schedule(after: .zero) { ran.withLock { _ = $0.insert(index) } }
        }
        let sentinel = Latch()
        loop.schedule(after: .zero) { sentinel.set() }
        await withTaskGroup(of: Void.self) { tasks in
            for thread in 0..<4 {
                tasks.addTask {
                    await onOwnThread("test-cancel-\(thread)") {
                        // Every even timer, each cancelled by two threads (cancel is idempotent).
                        for index in stride(from: 2 * (thread % 2), to: count, by: 4) { scheduled[index].cancel() }
                        for index in stride(from: 2 * ((thread + 1) % 2), to: count, by: 4) { scheduled[index].cancel() }
                    }
                }
            }
        }
        gate.signal()
        #expect(await sentinel.wait(atMost: outcomeDeadline))
        #expect(ran.withLock { $0 } == Set(stride(from: 1, to: count, by: 2)))
        // Cancelling a timer that already ran changes nothing.
        scheduled[1].cancel()
        await loop.submit {}
        #expect(ran.withLock { $0.count } == count / 2)
        await group.shutdown()
    }
}
