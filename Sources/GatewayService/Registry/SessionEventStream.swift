import GatewayDomain
import GatewayWire
import Synchronization

/// A session's live `SubscribeEvents` call, delivering events in sequence order.
///
/// The registry numbers events under its lock and the shell sends them after releasing
/// it, so two threads may hand over events of one session out of order; the stream holds
/// an early event back until the ones before it are sent.
///
/// Its ``Order`` is one value behind one lock, fed through ``feed(_:)``. The events it lets
/// go are handed to the call under that lock (the lock is what keeps two threads' events in
/// sequence on the connection); the answers it releases run after the lock.
final class SessionEventStream: Sendable {
    /// Which events went out, which wait for an earlier one, and which answers wait for them.
    struct Order: Sendable {
        enum Event: Sendable {
            /// An event of the session was handed over.
            case event(ReaderGatewayV1.SessionEvent)
            /// An answer waits for the events up to `through`; `finished`: the call ended.
            case answerWaiting(through: UInt64, finished: Bool, answer: @Sendable () -> Void)
            /// The stream is over (ended, replaced, cancelled).
            case released
        }

        /// What the stream does: send these events in order (under the lock), then run these answers.
        struct Action {
            var send: [ReaderGatewayV1.SessionEvent] = []
            var run: [@Sendable () -> Void] = []
        }

        private(set) var next: UInt64
        private var held: [UInt64: ReaderGatewayV1.SessionEvent] = [:]
        /// Answers waiting for the events up to a sequence number to go out first.
        private var waiting: [(through: UInt64, run: @Sendable () -> Void)] = []
        /// The stream is over: nothing waits any more.
        private var released = false

        init(next: UInt64) { self.next = next }

        mutating func handle(_ event: Event) -> Action {
            var action = Action()
            switch event {
            case .event(let event):
                // Events older than the stream's first went to the stream it replaced.
                guard event.sequence >= next else { return action }
                guard event.sequence == next else {
                    held[event.sequence] = event
                    return action
                }
                action.send.append(event)
                next += 1
                while let held = held.removeValue(forKey: next) {
                    action.send.append(held)
                    next += 1
                }
                guard !waiting.isEmpty else { return action }
                action.run = waiting.filter { $0.through < next }.map(\.run)
                waiting.removeAll { $0.through < next }
            case .answerWaiting(let through, let finished, let answer):
                if through < next || released || finished {
                    action.run.append(answer)
                } else {
                    waiting.append((through, answer))
                }
            case .released:
                released = true
                action.run = waiting.map(\.run)
                waiting.removeAll()
            }
            return action
        }
    }

    let call: ServerCall
    let session: SessionID
    private let order: Mutex<Order>

    init(call: ServerCall, session: SessionID, firstSequence: UInt64) {
        self.call = call
        self.session = session
        self.order = Mutex(Order(next: firstSequence))
    }

    /// Sends `event` once every event before it was sent (events older than the stream's
    /// first are dropped: they went to the stream it replaced).
    func send(_ event: ReaderGatewayV1.SessionEvent) {
        feed(.event(event))
    }

    /// Runs `answer` (which ends another call of the session's connection) once every event
    /// numbered up to `sequence` has been handed to the connection, so that the connection
    /// carries those events before the answer: a refusal for a lost reader never overtakes
    /// the event telling of the loss. At once when they already went out, or the stream is
    /// over.
    func afterEvents(through sequence: UInt64, _ answer: @escaping @Sendable () -> Void) {
        feed(.answerWaiting(through: sequence, finished: call.isFinished, answer: answer))
    }

    /// The stream is over (ended, replaced, cancelled): answers waiting for its events go now.
    func releaseWaiting() {
        feed(.released)
    }

    private func feed(_ event: Order.Event) {
        let answers = order.withLock { order -> [@Sendable () -> Void] in
            let action = order.handle(event)
            for event in action.send { call.send(event) }
            return action.run
        }
        for answer in answers { answer() }
    }
}
