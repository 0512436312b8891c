import CGatewayLinux
import Foundation
import GatewayCore
import GatewayEventLoop
import GatewayTestKit
import Testing

@Suite("Event loop timers: order and long delays")
struct EventLoopTimerOrderTests {
    @Test("no timer overtakes one scheduled before it with a delay no longer than its own")
    func deadlineOrder() async throws {
        let group = try EventLoopGroup(loopCount: 1)
        let loop = group.loops[0]
        var generator = SplitMix64(seed: 0x7157_0ADE)
        // 400 timers over 0–15 ms: most delays are shared by many timers.
        let delays = (0..<400).map { _ in Int.random(in: 0...15, using: &generator) }
        let ran = Locked<[Int]>([])
        let offLoop = Locked(0)
        let allRan = Countdown(delays.count)
        loop.execute {
            for (index, delay) in delays.enumerated() {
                loop.schedule(after: .milliseconds(delay)) {
                    if !loop.inEventLoop { offLoop.withLock { $0 += 1 } }
                    ran.withLock { $0.append(index) }
                    allRan.arrive()
                }
            }
        }
        #expect(await allRan.wait(atMost: outcomeDeadline))
        let order = ran.withLock { $0 }
        #expect(order.sorted() == Array(delays.indices), "each timer runs exactly once")
        #expect(offLoop.withLock { $0 } == 0)
        // Scheduled later with a delay at least as long means a deadline at least as late, and
        // equal deadlines run in the order they were scheduled: that order must hold whatever
        // the machine's load did to the time between the schedule calls.
        var position = [Int](repeating: -1, count: delays.count)
        for (place, index) in order.enumerated() { position[index] = place }
        var overtaken: [String] = []
        for earlier in delays.indices {
            for later in (earlier + 1)..<delays.count where delays[later] >= delays[earlier] && position[later] < position[earlier] {
                overtaken.append("#\(later) (\(delays[later]) ms) before #\(earlier) (\(delays[earlier]) ms)")
            }
        }
        #expect(overtaken.isEmpty, "\(overtaken.prefix(5))")
        await group.shutdown()
    }

    @Test("timers scheduled from several threads at once: each thread's timers of one delay run in its order")
    func fromManyThreads() async throws {
        let group = try EventLoopGroup(loopCount: 1)
        let loop = group.loops[0]
        let threads = 4
        let perThread = 250
        let seen = Locked<[[Int]]>(Array(repeating: [], count: threads))
        let allRan = Countdown(threads * perThread)
        await withTaskGroup(of: Void.self) { tasks in
            for thread in 0..<threads {
                tasks.addTask {
                    await onOwnThread("test-timers-\(thread)") {
                        for index in 0..<perThread {
                            loop.schedule(after: .milliseconds(2)) {
                                seen.withLock { $0[thread].append(index) }
                                allRan.arrive()
                            }
                        }
                    }
                }
            }
        }
        #expect(await allRan.wait(atMost: outcomeDeadline))
        for order in seen.withLock({ $0 }) { #expect(order == Array(0..<perThread)) }
        await group.shutdown()
    }

    @Test("a delay too long for 64-bit nanoseconds waits forever instead of wrapping into the past")
    func delayTooLong() async throws {
        #expect(Duration.seconds(Int64.max).nanoseconds == UInt64.max)
        #expect(Duration.seconds(1 << 35).nanoseconds == UInt64.max)
        #expect(Duration.seconds(18_446_744_073).nanoseconds == 18_446_744_073_000_000_000)
        #expect(Duration.milliseconds(1_500).nanoseconds == 1_500_000_000)
        #expect(Duration.nanoseconds(-5).nanoseconds == 0)

        let group = try EventLoopGroup(loopCount: 1)
        let loop = group.loops[0]
        let fired = Locked<[String]>([])
        // From the loop's thread and from another: both compute the deadline where they run.
        loop.execute {
            loop.schedule(after: .seconds(Int64.max)) { fired.withLock { $0.append("longest, on the loop") } }
        }
        await onOwnThread {
            loop.schedule(after: .seconds(Int64.max)) { fired.withLock { $0.append("longest, from a thread") } }
            loop.schedule(after: .seconds(1 << 40)) { fired.withLock { $0.append("2^40 s") } }
        }
        // Handed over after the others: when it has run, a wrapped deadline would have run first.
        let sentinel = Latch()
        loop.schedule(after: .milliseconds(5)) { sentinel.set() }
        #expect(await sentinel.wait(atMost: outcomeDeadline))
        await loop.submit {}
        #expect(fired.withLock { $0 } == [])
        await group.shutdown()
    }

    @Test("a timer that reschedules itself with no delay runs once a tick; sockets, tasks and other timers are still served")
    func reschedulingDoesNotStarve() async throws {
        let group = try EventLoopGroup(loopCount: 1)
        let loop = group.loops[0]
        let ticks = await loop.submit { loop.attached(TickCounter.self) { TickCounter() } }
        let runTicks = Locked<[Int]>([])
        let stop = Locked(false)
        @Sendable func again() {
            loop.schedule(after: .zero) {
                runTicks.withLock { $0.append(ticks.finished) }
                if !stop.withLock({ $0 }) { again() }
            }
        }
        loop.execute { again() }

        // While it spins: a socket's bytes, a task from another thread, a 5 ms timer.
        let sockets = try SocketPair()
        let reader = RecordingReader(fd: sockets.watched, loop: loop)
        #expect(await loop.submit { loop.register(fd: sockets.watched, events: RG_EPOLLIN, reader) != nil })
        sockets.send([7, 8, 9])
        #expect(await reader.bytes(atLeast: 3) == [7, 8, 9])
        #expect(await onOwnThread { () -> Bool in
            let ran = DispatchSemaphore(value: 0)
            loop.execute { ran.signal() }
            return ran.wait(timeout: .now() + .seconds(30)) == .success
        })
        let timer = Latch()
        loop.schedule(after: .milliseconds(5)) { timer.set() }
        #expect(await timer.wait(atMost: outcomeDeadline))

        stop.withLock { $0 = true }
        await loop.submit { loop.deregister(fd: sockets.watched) }
        let runs = runTicks.withLock { $0 }
        #expect(runs.count > 1)
        #expect(Set(runs).count == runs.count, "a zero-delay timer rescheduled from its own run ran twice in one tick")
        await group.shutdown()
    }
}
