import CGatewayLinux
import GatewayCore
import GatewayEventLoop
import GatewayTestKit
import Synchronization
import Testing

@Suite("Event loop deadlines: lazy re-arming, deregistration, reused descriptors")
struct EventLoopDeadlineTargetTests {
    @Test("a deadline moved later is re-armed when the old one fires, and reached once, at the new one")
    func movedLater() async throws {
        let group = try EventLoopGroup(loopCount: 1)
        let loop = group.loops[0]
        let sockets = try SocketPair()
        let target = IdleTarget(loop: loop, fd: sockets.watched)
        let expired = try #require(await loop.submit { () -> UInt64? in
            guard loop.register(fd: sockets.watched, events: 0, target) != nil else { return nil }
            // Armed at +5 ms, then moved twice by "activity" (the field only, no heap entry).
            target.deadline = loop.now + 5_000_000
            loop.armDeadline(target.deadline, forRegistered: sockets.watched)
            target.deadline += 5_000_000
            target.deadline += 5_000_000
            return target.deadline
        })
        let calls = try #require(await target.expired())
        // Fired at the armed deadline, re-armed at the moved one, expired there (or at once, if
        // the loop came to the first entry only after the moved deadline).
        let armed = expired - 10_000_000
        let first = try #require(calls.first)
        #expect(calls.map(\.deadline) == (first.now >= expired ? [armed] : [armed, expired]))
        for call in calls { #expect(call.now >= call.deadline, "a deadline was reported before it was reached") }
        #expect(target.offLoopCalls.load(ordering: .relaxed) == 0)
        await loop.submit { loop.deregister(fd: sockets.watched) }
        await group.shutdown()
    }

    @Test("a deadline of a deregistered descriptor never fires, not even for its next registration")
    func deregisteredAndReused() async throws {
        let group = try EventLoopGroup(loopCount: 1)
        let loop = group.loops[0]
        let sockets = try SocketPair()
        let first = IdleTarget(loop: loop, fd: sockets.watched)
        let second = IdleTarget(loop: loop, fd: sockets.watched)
        let fd = sockets.watched
        let sentinel = Latch()
        #expect(await loop.submit { () -> Bool in
            guard loop.register(fd: fd, events: 0, first) != nil else { return false }
            first.deadline = loop.now + 2_000_000
            loop.armDeadline(first.deadline, forRegistered: fd)
            // The same descriptor number, registered anew: a new token.
            loop.deregister(fd: fd)
            guard loop.register(fd: fd, events: 0, second) != nil else { return false }
            second.deadline = .max
            // Scheduled after the arming, with a later deadline: when it runs, the entry is past.
            loop.schedule(after: .milliseconds(2)) { sentinel.set() }
            return true
        })
        #expect(await sentinel.wait(atMost: outcomeDeadline))
        await loop.submit {}
        #expect(first.calls.withLock { $0 }.isEmpty)
        #expect(second.calls.withLock { $0 }.isEmpty, "the old registration's deadline reached the new one")

        // The new registration's own deadline fires.
        await loop.submit {
            second.deadline = loop.now + 1_000_000
            loop.armDeadline(second.deadline, forRegistered: fd)
        }
        #expect(await second.expired()?.count == 1)
        // Arming for a descriptor that is not registered does nothing.
        let none = Latch()
        await loop.submit {
            loop.deregister(fd: fd)
            loop.armDeadline(loop.now, forRegistered: fd)
            loop.armDeadline(loop.now, forRegistered: -1)
            loop.armDeadline(loop.now, forRegistered: 100_000)
            loop.schedule(after: .zero) { none.set() }
        }
        #expect(await none.wait(atMost: outcomeDeadline))
        #expect(second.calls.withLock { $0 }.count == 1)
        await group.shutdown()
    }
}

/// A connection-like deadline target: it keeps its idle deadline in a field that activity
/// moves; when an armed entry fires early it re-arms at the field, and once reached it
/// reports every call it had. `@unchecked Sendable`: ``deadline`` is touched on the loop
/// thread only; ``calls`` is a `Mutex`.
final class IdleTarget: EventLoopSelectable, EventLoopDeadlineTarget, @unchecked Sendable {
    let loop: EventLoop
    /// The descriptor it is registered for.
    let fd: Int32
    var deadline: UInt64 = .max
    let calls = Mutex<[(deadline: UInt64, now: UInt64)]>([])
    let offLoopCalls = Atomic<Int>(0)
    private let reached = Latch()

    init(loop: EventLoop, fd: Int32) {
        self.loop = loop
        self.fd = fd
    }

    func handleEvents(_ events: UInt32) {}

    func deadlineReached(_ armed: UInt64, now: UInt64) {
        if !loop.inEventLoop { offLoopCalls.add(1, ordering: .relaxed) }
        calls.withLock { $0.append((armed, now)) }
        if now < deadline {
            loop.armDeadline(deadline, forRegistered: fd)
        } else {
            reached.set()
        }
    }

    /// Waits until the deadline was reached, and returns every call so far (nil if it was not
    /// reached within `limit`).
    func expired(within limit: Duration = outcomeDeadline) async -> [(deadline: UInt64, now: UInt64)]? {
        guard await reached.wait(atMost: limit) else { return nil }
        return calls.withLock { $0 }
    }
}
