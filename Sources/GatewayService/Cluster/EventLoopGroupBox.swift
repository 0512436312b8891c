import GatewayTransport
import Synchronization

/// The event loop group replica channels use (set when the host starts).
final class EventLoopGroupBox: Sendable {
    private let storage = Mutex<EventLoopGroup?>(nil)
    var group: EventLoopGroup? { storage.withLock { $0 } }
    func set(_ group: EventLoopGroup?) { storage.withLock { $0 = group } }
}
