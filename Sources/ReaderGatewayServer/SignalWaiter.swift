import CGatewayLinux
import Foundation

/// Waits for SIGINT or SIGTERM through a signalfd.
///
/// ``install()`` must run before any thread starts, so that every thread
/// inherits the blocked mask and the signals queue on the descriptor instead
/// of killing the process. (Children get a clean mask from `rg_spawn`.)
final class SignalWaiter: Sendable {
    private let descriptor: Int32

    private init(descriptor: Int32) { self.descriptor = descriptor }

    static func install() -> SignalWaiter? {
        let signals: [Int32] = [SIGINT, SIGTERM]
        let descriptor = signals.withUnsafeBufferPointer { rg_signalfd($0.baseAddress, Int32($0.count)) }
        return descriptor >= 0 ? SignalWaiter(descriptor: descriptor) : nil
    }

    /// Returns the next signal's number, waiting on a thread of its own.
    func next() async -> Int32 {
        await withCheckedContinuation { continuation in
            let descriptor = self.descriptor
            let thread = Thread {
                while true {
                    var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                    _ = poll(&poller, 1, -1)
                    let signal = rg_signalfd_read(descriptor)
                    if signal > 0 {
                        continuation.resume(returning: signal)
                        return
                    }
                }
            }
            thread.name = "signals"
            thread.start()
        }
    }
}
