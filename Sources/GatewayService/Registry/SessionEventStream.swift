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
        /// Answers waiting for the events up to a sequence number to go out first.
        var waiting: [(through: UInt64, run: @Sendable () -> Void)] = []
        /// The stream is over: nothing waits any more.
        var released = false
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
            guard !order.waiting.isEmpty else { return }
            let next = order.next
            for answer in order.waiting where answer.through < next { answer.run() }
            order.waiting.removeAll { $0.through < next }
        }
    }

    /// Runs `answer` (which ends another call of the session's connection) once every event
    /// numbered up to `sequence` has been handed to the connection, so that the connection
    /// carries those events before the answer: a refusal for a lost reader never overtakes
    /// the event telling of the loss. At once when they already went out, or the stream is
    /// over.
    func afterEvents(through sequence: UInt64, _ answer: @escaping @Sendable () -> Void) {
        order.withLock { order in
            if sequence < order.next || order.released || call.isFinished {
                answer()
            } else {
                order.waiting.append((sequence, answer))
            }
        }
    }

    /// The stream is over (ended, replaced, cancelled): answers waiting for its events go now.
    func releaseWaiting() {
        order.withLock { order in
            order.released = true
            for answer in order.waiting { answer.run() }
            order.waiting.removeAll()
        }
    }
}
