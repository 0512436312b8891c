import CGatewayLinux
import Foundation
import GatewayEventLoop
import GatewayTestKit
import Synchronization
import Testing

@Suite("Event loop: readiness, timers, tasks, shutdown")
struct EventLoopTests {
    @Test("a plain socket registered with a handler: its bytes are read on the loop thread")
    func plainSocketReadiness() async throws {
        let group = try EventLoopGroup(loopCount: 1)
        let loop = group.loops[0]
        let sockets = try SocketPair()
        let reader = RecordingReader(fd: sockets.watched, loop: loop)
        let registered = await loop.submit { loop.register(fd: sockets.watched, events: RG_EPOLLIN, reader) != nil }
        #expect(registered)

        sockets.send(Array("hello".utf8))
        #expect(await reader.bytes(atLeast: 5) == Array("hello".utf8))
        // Level-triggered (no RG_EPOLLET): a second write is a second readiness.
        sockets.send(Array(", loop".utf8))
        #expect(await reader.bytes(atLeast: 11) == Array("hello, loop".utf8))
        #expect(reader.snapshot.offLoopCalls == 0)

        await loop.submit { loop.deregister(fd: sockets.watched) }
        await group.shutdown()
    }

    @Test("a registration changed and removed from another thread takes effect at once")
    func registrationFromAnotherThread() async throws {
        let group = try EventLoopGroup(loopCount: 1)
        let loop = group.loops[0]
        let sockets = try SocketPair()
        let reader = RecordingReader(fd: sockets.watched, loop: loop)
        // Registered with no interest: data does not report itself.
        let registration = try #require(await loop.submit { loop.register(fd: sockets.watched, events: 0, reader) })
        sockets.send([1])
        // A task handed over after the write runs in a tick whose epoll_wait already saw the
        // socket's readiness, had it been watched: the handler would have run before the task.
        await loop.submit {}
        #expect(reader.snapshot.events == 0)

        // The interest changes from this (non-loop) thread, as the store's callers do.
        #expect(await onOwnThread { loop.modify(registration, events: RG_EPOLLIN) })
        #expect(await reader.bytes(atLeast: 1) == [1])

        // Removed from this thread: later data is not reported.
        await onOwnThread { loop.deregister(registration) }
        let eventsBefore = reader.snapshot.events
        sockets.send([2])
        await loop.submit {}
        await loop.submit {}
        #expect(reader.snapshot.events == eventsBefore)
        #expect(reader.snapshot.bytes == [1])
        // The loop's table dropped the handler too.
        #expect(await loop.submit { loop.registeredObjects().isEmpty })
        await group.shutdown()
    }

    @Test("tasks handed over from many threads run on the loop thread, each thread's in order")
    func executeFromOtherThreads() async throws {
        let group = try EventLoopGroup(loopCount: 1)
        let loop = group.loops[0]
        let threads = 4
        let perThread = 500
        let seen = Locked<[[Int]]>(Array(repeating: [], count: threads))
        let offLoop = Locked(0)
        await withTaskGroup(of: Void.self) { tasks in
            for thread in 0..<threads {
                tasks.addTask {
                    await onOwnThread("test-execute-\(thread)") {
                        for index in 0..<perThread {
                            loop.execute {
                                if !loop.inEventLoop { offLoop.withLock { $0 += 1 } }
                                seen.withLock { $0[thread].append(index) }
                            }
                        }
                    }
                }
            }
        }
        // Every task above was queued before this one.
        await loop.submit {}
        #expect(offLoop.withLock { $0 } == 0)
        for order in seen.withLock({ $0 }) { #expect(order == Array(0..<perThread)) }
        await group.shutdown()
    }

    @Test("timers run no earlier than their delay, in deadline order; a cancelled one never runs")
    func timers() async throws {
        let group = try EventLoopGroup(loopCount: 1)
        let loop = group.loops[0]
        let order = Locked<[String]>([])
        let started = ContinuousClock.now
        let elapsed = Locked<Duration?>(nil)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            loop.execute {
                loop.schedule(after: .milliseconds(40)) {
                    elapsed.withLock { $0 = ContinuousClock.now - started }
                    order.withLock { $0.append("40 ms") }
                    continuation.resume()
                }
                loop.schedule(after: .milliseconds(10)) { order.withLock { $0.append("10 ms") } }
                loop.schedule(after: .milliseconds(20)) { order.withLock { $0.append("cancelled") } }.cancel()
                loop.schedule(after: .milliseconds(30)) { order.withLock { $0.append("30 ms") } }
            }
        }
        #expect(order.withLock { $0 } == ["10 ms", "30 ms", "40 ms"])
        #expect(try #require(elapsed.withLock { $0 }) >= .milliseconds(40))
        await group.shutdown()
    }

    @Test("shutdown runs the tasks handed over before it, then the thread ends; a loop can stop itself")
    func shutdown() async throws {
        let group = try EventLoopGroup(loopCount: 2)
        let ran = Locked(0)
        let gate = DispatchSemaphore(value: 0)
        // The loop is busy in a task while more are handed over and the shutdown is asked for.
        group.loops[0].execute { gate.wait() }
        for _ in 0..<100 { group.loops[0].execute { ran.withLock { $0 += 1 } } }
        group.requestShutdown()
        gate.signal()
        await group.shutdown()
        #expect(ran.withLock { $0 } == 100)

        // A loop asks for the shutdown from its own thread; its thread then ends by itself.
        let other = try EventLoopGroup(loopCount: 1, threadNamePrefix: "rg-self-stop")
        await other.loops[0].submit { }  // the thread has named itself once it runs tasks
        #expect(try Self.threadNames().contains("rg-self-stop-0"))
        let askedOnItsThread = await other.loops[0].submit {
            other.requestShutdown()
            return other.loops[0].inEventLoop
        }
        #expect(askedOnItsThread)
        #expect(try await eventually { try !Self.threadNames().contains("rg-self-stop-0") }, "the loop that asked for its shutdown still runs")
        // Returns only once the loop thread left its loop: two waiters both return.
        await other.shutdown()
        other.syncShutdown()
    }

    /// The names of this process's threads (`/proc/self/task/*/comm`).
    static func threadNames() throws -> Set<String> {
        // A thread may end between the listing and the read of its name: it is then left out.
        Set(try FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").compactMap { task in
            (try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8))?.trimmingCharacters(in: .newlines)
        })
    }

    @Test("a tick hook runs every tick once attached, and keeps the loop polling while it has work left")
    func tickHooks() async throws {
        let group = try EventLoopGroup(loopCount: 1)
        let loop = group.loops[0]
        let hook = await loop.submit { loop.attached(CountingHook.self) { CountingHook(rounds: 50) } }
        // The hook reports work left for 50 ticks; with nothing else to do the loop must not
        // block meanwhile, so the count is reached without any other wake-up.
        await hook.done.wait()
        let again = await loop.submit { loop.attached(CountingHook.self) { CountingHook(rounds: 0) } }
        #expect(again === hook)
        await group.shutdown()
    }
}

/// Counts `beforeSleep` calls and keeps reporting work left until `rounds` ticks ran.
/// `@unchecked Sendable`: `ticks` is touched on the loop thread only; `done` is a `Latch`-like
/// continuation holder.
final class CountingHook: EventLoopTickHook, @unchecked Sendable {
    let rounds: Int
    var ticks = 0
    let done = Gate()

    init(rounds: Int) { self.rounds = rounds }

    func afterEvents() {}

    func beforeSleep() {
        ticks += 1
        if ticks == rounds { done.open() }
    }

    var hasWorkLeft: Bool { ticks < rounds }
}
