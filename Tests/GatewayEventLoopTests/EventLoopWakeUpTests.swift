import CGatewayLinux
import Foundation
import GatewayCore
import GatewayEventLoop
import GatewayTestKit
import Testing

@Suite("Event loop wake-ups from other threads")
struct EventLoopWakeUpTests {
    @Test("an idle loop (no timer) hears every task handed over from four threads, one round trip at a time")
    func noLostWakeUp() async throws {
        let group = try EventLoopGroup(loopCount: 1)
        let loop = group.loops[0]
        let roundTrips = 2_000
        // Each thread waits for its task to run before it hands over the next: the loop goes
        // back to sleep between them, so a wake-up lost to the queue's "was empty" check would
        // leave a thread waiting here.
        let completed = await withTaskGroup(of: Int.self) { tasks in
            for thread in 0..<4 {
                tasks.addTask {
                    await onOwnThread("test-wake-\(thread)") {
                        let ran = DispatchSemaphore(value: 0)
                        for round in 0..<roundTrips {
                            loop.execute { ran.signal() }
                            guard ran.wait(timeout: .now() + .seconds(30)) == .success else { return round }
                        }
                        return roundTrips
                    }
                }
            }
            return await tasks.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(completed == Array(repeating: roundTrips, count: 4))
        await group.shutdown()
    }

    @Test("a loop asleep until a timer an hour away wakes for a task and for a nearer timer handed over")
    func wakesBeforeALongTimer() async throws {
        let group = try EventLoopGroup(loopCount: 1)
        let loop = group.loops[0]
        let farOff = Locked(false)
        _ = await loop.submit { loop.schedule(after: .seconds(3_600)) { farOff.withLock { $0 = true } } }
        // The loop now sleeps in epoll_wait for up to an hour.
        #expect(await onOwnThread { () -> Bool in
            let ran = DispatchSemaphore(value: 0)
            loop.execute { ran.signal() }
            return ran.wait(timeout: .now() + .seconds(30)) == .success
        }, "a task handed over did not wake the loop")
        let near = Latch()
        await onOwnThread { _ = loop.schedule(after: .milliseconds(1)) { near.set() } }
        #expect(await near.wait(atMost: outcomeDeadline))
        #expect(!farOff.withLock { $0 })
        await group.shutdown()
    }

    @Test("tasks the loop hands itself from a task, a timer, a handler and a tick hook run without a wake-up")
    func selfHandedTasks() async throws {
        let group = try EventLoopGroup(loopCount: 1)
        let loop = group.loops[0]
        // A chain of 1,000 tasks, each queued by the one before on the loop's own thread (no
        // eventfd write): the loop must not block in between.
        let chainDone = Latch()
        @Sendable func link(_ left: Int) {
            if left == 0 { chainDone.set() } else { loop.execute { link(left - 1) } }
        }
        loop.execute { link(1_000) }
        #expect(await chainDone.wait(atMost: outcomeDeadline))

        // From a timer's run (timers come after the tasks in a tick).
        let fromTimer = Latch()
        loop.execute { loop.schedule(after: .zero) { loop.execute { fromTimer.set() } } }
        #expect(await fromTimer.wait(atMost: outcomeDeadline))

        // From a readiness handler.
        let sockets = try SocketPair()
        let fromHandler = Latch()
        let handler = CallbackHandler { loop.execute { fromHandler.set() } }
        #expect(await loop.submit { loop.register(fd: sockets.watched, events: RG_EPOLLIN | RG_EPOLLET, handler) != nil })
        sockets.send([1])
        #expect(await fromHandler.wait(atMost: outcomeDeadline))

        // From a tick hook's last step, before the loop would sleep.
        let fromHook = Latch()
        let hook = await loop.submit { loop.attached(HandOverHook.self) { HandOverHook(loop: loop) } }
        hook.arm { fromHook.set() }
        loop.execute {}
        #expect(await fromHook.wait(atMost: outcomeDeadline))

        await loop.submit { loop.deregister(fd: sockets.watched) }
        #expect(chainDone.isSet && fromTimer.isSet && fromHandler.isSet && fromHook.isSet)
        await group.shutdown()
    }
}

/// A tick hook that, once armed, hands the loop a task from ``beforeSleep()`` (once).
/// `@unchecked Sendable`: ``pending`` is a lock-guarded value; the loop is immutable.
final class HandOverHook: EventLoopTickHook, @unchecked Sendable {
    let loop: EventLoop
    private let pending = Locked<(@Sendable () -> Void)?>(nil)

    init(loop: EventLoop) { self.loop = loop }

    func arm(_ task: @escaping @Sendable () -> Void) { pending.withLock { $0 = task } }

    func afterEvents() {}

    func beforeSleep() {
        guard let task = pending.withLock({ value -> (@Sendable () -> Void)? in
            defer { value = nil }
            return value
        }) else { return }
        loop.execute(task)
    }

    var hasWorkLeft: Bool { false }
}
