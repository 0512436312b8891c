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

    private enum State {
        /// The link shows a code; nobody registered it yet.
        case waiting
        /// An admin registered the code; the link has not taken it yet.
        case delivered(ReaderRecord, credential: String, Answer)
        /// The link took the registration and is going online; the admin waits.
        case goingOnline(Answer)
        /// Answered, or the link ended: a later delivery is refused at once.
        case finished
    }

    private let state = Mutex(State.waiting)

    /// Hands `record` and its credential to the link (woken with `wake`) and waits until
    /// the link is online: returns the reader as it is then, or nil when the link ended
    /// before (nothing reached the reader).
    func deliver(_ record: ReaderRecord, credential: String, wake: @Sendable () -> Void) async -> ReaderGatewayV1.Reader? {
        await withCheckedContinuation { (answer: Answer) in
            let accepted = state.withLock { state -> Bool in
                guard case .waiting = state else { return false }
                state = .delivered(record, credential: credential, answer)
                return true
            }
            if accepted { wake() } else { answer.resume(returning: nil) }
        }
    }

    /// The registration an admin delivered, taken by the link (nil when none arrived).
    func take() -> (ReaderRecord, String)? {
        state.withLock { state in
            guard case .delivered(let record, let credential, let answer) = state else { return nil }
            state = .goingOnline(answer)
            return (record, credential)
        }
    }

    /// Ends the mailbox. The admin waiting on it, if any, hears `reader` (nil: the link
    /// ended before it went online). Idempotent: only the first call answers.
    func finish(_ reader: ReaderGatewayV1.Reader?) {
        let answer = state.withLock { state -> Answer? in
            defer { state = .finished }
            switch state {
            case .delivered(_, _, let answer), .goingOnline(let answer): return answer
            case .waiting, .finished: return nil
            }
        }
        answer?.resume(returning: reader)
    }
}
