import Dispatch
import GatewayChannel
import GatewayWire
import Synchronization

/// A channel's executor on a serial dispatch queue, as an app's transport on Network.framework
/// would have it: work in order, timers on the same queue. Dispatch exists on Linux and on
/// Apple platforms alike, so the core's tests run on what an Apple app's transport runs on.
struct QueueExecutor: ChannelExecutor {
    let queue: DispatchQueue

    init(label: String) {
        queue = DispatchQueue(label: label)
    }

    func execute(_ work: @escaping @Sendable () -> Void) {
        queue.async(execute: work)
    }

    func schedule(after delay: Duration, _ work: @escaping @Sendable () -> Void) -> any ChannelTimer {
        let timer = QueueTimer()
        let nanoseconds = Int(max(0, WireTime.nanoseconds(of: delay)))
        queue.asyncAfter(deadline: .now() + .nanoseconds(nanoseconds)) {
            if !timer.isCancelled { work() }
        }
        return timer
    }
}

/// A timer of a ``QueueExecutor``: cancelled before it fired, its work does not run.
final class QueueTimer: ChannelTimer {
    private let cancelled = Mutex(false)

    var isCancelled: Bool { cancelled.withLock { $0 } }

    func cancel() {
        cancelled.withLock { $0 = true }
    }
}
