import GatewayDomain
import GatewayWire
import Synchronization

/// A session's live `SubscribeEvents` call, delivering events in sequence order.
///
/// The registry numbers events under its lock and the shell sends them after releasing
/// it, so two threads may hand over events of one session out of order; the stream holds
/// an early event back until the ones before it are sent.
final class SessionEventStream: Sendable {
    let call: ServerCall
    let session: SessionID
    private let order: Mutex<Order>

    private struct Order {
        var next: UInt64
        var held: [UInt64: ReaderGatewayV1.SessionEvent] = [:]
    }

    init(call: ServerCall, session: SessionID, firstSequence: UInt64) {
        self.call = call
        self.session = session
        self.order = Mutex(Order(next: firstSequence))
    }

    /// Sends `event` once every event before it was sent (events older than the stream's
    /// first are dropped: they went to the stream it replaced).
    func send(_ event: ReaderGatewayV1.SessionEvent) {
        order.withLock { order in
            guard event.sequence >= order.next else { return }
            guard event.sequence == order.next else {
                order.held[event.sequence] = event
                return
            }
            call.send(event)
            order.next += 1
            while let held = order.held.removeValue(forKey: order.next) {
                call.send(held)
                order.next += 1
            }
        }
    }
}
