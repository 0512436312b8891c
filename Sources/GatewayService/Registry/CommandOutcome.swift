import GatewayCore
import GatewayRegistry
import GatewayWire

/// What a command relayed to a reader ended with.
enum CommandOutcome: Sendable {
    /// The reader answered.
    case answered(ReaderGatewayV1.CommandResult)
    /// The gateway ended it (link lost, takeover, timeout).
    case failed(ServiceError)
}

extension CommandOutcome {
    /// The reader's result when the command succeeded; else why it failed (a reader that
    /// answered with a failure status fails with its reason, READER_ERROR when it gave none;
    /// a decline keeps its decline code).
    var answer: Result<ReaderGatewayV1.CommandResult, ServiceError> {
        switch self {
        case .failed(let error):
            return .failure(error)
        case .answered(let result):
            guard let status = result.status, status.code != .ok else { return .success(result) }
            return .failure(ServiceError.readerReported(status))
        }
    }
}

extension ServiceError {
    /// The decline code of a `CARD_DECLINED` whose reader named none: Stripe's for a decline
    /// with no more specific reason.
    static let genericDeclineCode = "generic_decline"

    /// The error a reader's failed `status` stands for: its reason (READER_ERROR when it gave
    /// none) and message, and for a decline its decline code (``genericDeclineCode`` when it
    /// gave none, or one not written as Stripe writes them). A decline code on any other
    /// reason is dropped: it is a decline's alone.
    static func readerReported(_ status: ReaderGatewayV1.Status) -> ServiceError {
        let reason = status.reason == .unspecified ? ReaderGatewayV1.ErrorReason.readerError : status.reason
        let message = status.message.isEmpty ? (reason == .cardDeclined ? "the card was declined" : "the reader reported a failure") : status.message
        guard reason == .cardDeclined else { return ServiceError(reason, message) }
        return ServiceError(reason, message, declineCode: isDeclineCode(status.declineCode) ? status.declineCode : genericDeclineCode)
    }

    /// Whether `code` is written as Stripe writes decline codes (`insufficient_funds`): a
    /// lowercase letter, then lowercase letters, digits and `_`, at most 64 in all. Anything
    /// else a reader sends is not passed on to lanes, the event log and webhooks as it is.
    static func isDeclineCode(_ code: String) -> Bool {
        let bytes = code.utf8
        guard let first = bytes.first, bytes.count <= 64, (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(first) else { return false }
        return bytes.allSatisfy { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || $0 == UInt8(ascii: "_") }
    }
}

extension Result {
    /// The error of a failure; nil for a success.
    var failure: Failure? {
        guard case .failure(let error) = self else { return nil }
        return error
    }
}

/// Hands a relayed command its outcome (called once, outside the registry's lock, on any thread).
typealias CommandCompletion = @Sendable (CommandOutcome) -> Void

extension ServiceError {
    /// The error a command the registry ended fails with.
    static func command(_ failure: CommandFailure, timeout: Duration) -> ServiceError {
        switch failure {
        case .refusal(let refusal): .refusal(refusal)
        case .readerReattached: ServiceError(.readerOffline, "the reader re-attached while the command ran; retry it")
        case .linkMovedAway: ServiceError(.readerLinkMoved, "the reader attached again elsewhere while the command ran; retry it")
        case .replicaFenced: ServiceError(.readerLinkMoved, "this replica was fenced off; reattach (the owner keeps the reader)")
        case .timedOut: ServiceError(.readerTimeout, "the reader did not answer within \(Int(timeout.seconds)) s")
        }
    }

    /// The status a link the registry closed ends with.
    static func linkClosed(_ closure: LinkClosure) -> ServiceError {
        switch closure {
        case .replaced: ServiceError(.readerLinkReplaced, "a newer link from the same reader replaced this one")
        case .silent: ServiceError(.readerOffline, "no heartbeat within the offline bound; reattach")
        case .replicaFenced: ServiceError(.readerLinkMoved, "this replica was fenced off; reattach (the owner keeps the reader)")
        }
    }
}
