import GatewayPostgres
import GatewayRepositories
import GatewayWire
import Synchronization

/// Where an admin's registration of a code reaches the reader link showing it, and
/// where the admin hears back once that link is online.
///
/// `RegisterReader` answers with the reader as it is once its link went online (status
/// `online`, the activity of its heartbeats), not the row just written: the admin's
/// call hands the registration over with ``deliver(_:credential:wake:)`` and waits;
/// the link takes it with ``take()``, goes online, and answers with ``finish(_:)``.
/// Every way the link can end also calls ``finish(_:)`` (with nil), so the admin is
/// never left waiting.
///
/// ```
///  waiting ──deliver──▶ delivered ──take──▶ goingOnline ──finish(reader)──▶ finished
///     │                     │                    │
///     └──────finish(nil)────┴────finish(nil)─────┴──────────────────────────▶ finished
/// ```
final class RegistrationMailbox: Sendable {
    /// What the admin waits on: the live reader, or nil when the link ended first.
    typealias Answer = CheckedContinuation<ReaderGatewayV1.Reader?, Never>

    /// The mailbox as a value, generic over the admin's answer so that it is tested with plain values.
    enum State<Waiter: Sendable>: Sendable {
        /// The link shows a code; nobody registered it yet.
        case waiting
        /// An admin registered the code; the link has not taken it yet.
        case delivered(ReaderRecord, credential: String, Waiter)
        /// The link took the registration and is going online; the admin waits.
        case goingOnline(Waiter)
        /// Answered, or the link ended: a later delivery is refused at once.
        case finished

        enum Event: Sendable {
            /// An admin registered the code; `waiter` waits for the link to be online.
            case delivered(ReaderRecord, credential: String, Waiter)
            /// The link takes what was delivered.
            case taken
            /// The link is online (or ended).
            case finished
        }

        enum Action: Sendable {
            case none
            /// Wake the link: a registration waits for it.
            case wake
            /// Answer this admin at once with nil (the link is gone).
            case refuse(Waiter)
            /// The link takes this registration.
            case take(ReaderRecord, credential: String)
            /// Answer this admin with the reader as the link is now.
            case answer(Waiter)
        }

        mutating func handle(_ event: Event) -> Action {
            switch (self, event) {
            case (.waiting, .delivered(let record, let credential, let waiter)):
                self = .delivered(record, credential: credential, waiter)
                return .wake
            case (_, .delivered(_, _, let waiter)):
                return .refuse(waiter)
            case (.delivered(let record, let credential, let waiter), .taken):
                self = .goingOnline(waiter)
                return .take(record, credential: credential)
            case (_, .taken):
                return .none
            case (.delivered(_, _, let waiter), .finished), (.goingOnline(let waiter), .finished):
                self = .finished
                return .answer(waiter)
            case (.waiting, .finished), (.finished, .finished):
                self = .finished
                return .none
            }
        }
    }

    private let state = Mutex(State<Answer>.waiting)

    /// Hands `record` and its credential to the link (woken with `wake`) and waits until
    /// the link is online: returns the reader as it is then, or nil when the link ended
    /// before (nothing reached the reader).
    func deliver(_ record: ReaderRecord, credential: String, wake: @Sendable () -> Void) async -> ReaderGatewayV1.Reader? {
        await withCheckedContinuation { (answer: Answer) in
            switch feed(.delivered(record, credential: credential, answer)) {
            case .wake: wake()
            case .refuse(let answer): answer.resume(returning: nil)
            case .none, .take, .answer: break
            }
        }
    }

    /// The registration an admin delivered, taken by the link (nil when none arrived).
    func take() -> (ReaderRecord, String)? {
        guard case .take(let record, let credential) = feed(.taken) else { return nil }
        return (record, credential)
    }

    /// Ends the mailbox. The admin waiting on it, if any, hears `reader` (nil: the link
    /// ended before it went online). Idempotent: only the first call answers.
    func finish(_ reader: ReaderGatewayV1.Reader?) {
        if case .answer(let answer) = feed(.finished) { answer.resume(returning: reader) }
    }

    /// The mailbox's one lock: feeds the state an event; the caller acts after it.
    private func feed(_ event: State<Answer>.Event) -> State<Answer>.Action {
        state.withLock { $0.handle(event) }
    }
}
