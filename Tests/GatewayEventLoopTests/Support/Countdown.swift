import GatewayCore
import GatewayEventLoop
import Synchronization

/// Counts arrivals down from a number; waiters hear when it reaches zero (before or after
/// they started waiting).
final class Countdown: Sendable {
    private let left: Atomic<Int>
    private let reachedZero = Latch()

    init(_ count: Int) {
        left = Atomic(count)
        if count <= 0 { reachedZero.set() }
    }

    /// One arrival; the one that reaches zero wakes the waiters.
    func arrive() {
        if left.wrappingSubtract(1, ordering: .acquiringAndReleasing).newValue == 0 { reachedZero.set() }
    }

    /// Waits until the count reached zero (true) or `limit` passed (false).
    func wait(atMost limit: Duration) async -> Bool { await reachedZero.wait(atMost: limit) }
}

/// Counts a loop's ticks (one ``EventLoopTickHook/beforeSleep()`` each), so a test can tell
/// whether two things happened in one tick. Loop thread only, as the hooks are.
final class TickCounter: EventLoopTickHook, @unchecked Sendable {
    /// The number of ticks finished so far. Loop thread only.
    private(set) var finished = 0

    func afterEvents() {}
    func beforeSleep() { finished += 1 }
    var hasWorkLeft: Bool { false }
}
