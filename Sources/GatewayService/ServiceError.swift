import GatewayDomain
import GatewayRegistry
import GatewayWire

/// Why a call to the gateway failed: a wire status (canonical code plus the
/// precise `ErrorReason`) and a message that says what happened and what to do.
///
/// Every failure the services return to a peer is one of these; the message
/// never carries a secret, and for another account's ids it reads exactly as
/// for unknown ones.
public struct ServiceError: Error, Sendable, CustomStringConvertible {
    /// The reason sent on the wire; its canonical status code follows from it.
    public let reason: ReaderGatewayV1.ErrorReason
    /// What happened and what to do.
    public let message: String
    /// What caused it, for the log only (never sent).
    public let cause: String?
    /// How long the same call stays refused (a rate limit's wait), sent as the status's
    /// `retry_after_ms`; nil: no wait is known.
    public let retryAfter: Duration?
    /// For `CARD_DECLINED`: why the card was declined (`insufficient_funds`, ...), sent as the
    /// status's `decline_code`; nil for every other error.
    public let declineCode: String?

    public init(
        _ reason: ReaderGatewayV1.ErrorReason, _ message: String, cause: String? = nil, retryAfter: Duration? = nil, declineCode: String? = nil
    ) {
        self.reason = reason
        self.message = message
        self.cause = cause
        self.retryAfter = retryAfter
        self.declineCode = declineCode
    }

    /// The status sent in END_OF_CALL.
    public var status: ReaderGatewayV1.Status {
        var status = ReaderGatewayV1.Status(reason, message)
        if let retryAfter { status.retryAfterMs = ReaderGatewayV1.Status.milliseconds(roundingUp: retryAfter) }
        if let declineCode { status.declineCode = declineCode }
        return status
    }

    public var description: String {
        "\(reason): \(message)" + (declineCode.map { " (decline code: \($0))" } ?? "") + (cause.map { " (cause: \($0))" } ?? "")
    }

    // MARK: common errors

    static func invalid(_ message: String) -> ServiceError { ServiceError(.invalidRequest, message) }

    static let sessionUnknown = ServiceError(
        .sessionExpired, "the session is unknown, closed or its lease ran out; open a new session with a fresh connection token"
    )
    static let sessionMoved = ServiceError(
        .sessionMoved, "the session was resumed on another connection (possibly another replica); this stream is over: subscribe where the session was resumed"
    )
    static let replicaFenced = ServiceError(.readerLinkMoved, "this replica was fenced off; resume the session with its resume token")

    /// A call of a session on a connection whose event stream this replica ended asking for a
    /// resume: it fails the same way until `OpenSession(resume_token)` comes on that connection.
    static func resumeFirst(_ ending: StreamEnding) -> ServiceError {
        switch ending {
        case .sessionEnded: sessionUnknown
        case .replicaFenced: replicaFenced
        case .sessionMoved:
            ServiceError(
                .sessionMoved,
                "the session was resumed on another connection (possibly another replica) and its events go there; resume it with OpenSession(resume_token) to use this connection"
            )
        }
    }

    static let secretKeyInvalid = ServiceError(
        .secretKeyInvalid, "the secret key is missing or wrong; send metadata `authorization: Bearer <secret key>`"
    )
    static let readerNotFound = ServiceError(.readerNotFound, "no reader with this id in this account; list readers to find its id")
    static let locationNotFound = ServiceError(.locationNotFound, "no location with this id in this account; list locations to find its id")
    static let notConnected = ServiceError(.notConnectedToReader, "this session has no connected reader; discover readers and connect one first")

    /// A discovery ended before it answered: superseded by `newer`, or (nil) cancelled.
    static func discoveryCanceled(_ discovery: DiscoveryStateMachine.DiscoveryID, supersededBy newer: DiscoveryStateMachine.DiscoveryID?) -> ServiceError {
        let name = Gateway.wireDiscoveryID(discovery)
        guard let newer else {
            return ServiceError(.discoveryCanceled, "discovery \(name) was cancelled by CancelDiscovery before it answered; call DiscoverReaders again to list readers")
        }
        return ServiceError(
            .discoveryCanceled,
            "discovery \(name) was superseded by a newer DiscoverReaders on this session (\(Gateway.wireDiscoveryID(newer))) before it answered; use that discovery's answer"
        )
    }

    /// A command found its session's view stale (the reader's link knows a newer owner) and
    /// the store could not be read to tell the session first: retryable, and the session is
    /// never refused for a loss it has not been told of.
    /// A collect that CancelCollectPaymentMethod reached before the collect reached the reader.
    static let collectCanceledBeforeReader = ServiceError(
        .commandCanceled, "the collect was canceled (CancelCollectPaymentMethod) before it reached the reader; nothing was shown on the reader"
    )
    static let ownershipUnconfirmed = ServiceError(
        .storeUnavailable, "the reader has a newer owner than this session knew, and the ownership store could not be read to say who; retry with backoff"
    )

    static func store(_ error: any Error) -> ServiceError {
        ServiceError(.storeUnavailable, "the ownership store could not complete the request; retry with backoff", cause: "\(error)")
    }

    /// The wire error for an ownership refusal.
    /// Whether this error refuses a session's call because it lost (or never had) its reader:
    /// answers that must come after the `disconnected` event telling of the loss.
    var isOwnershipRefusal: Bool {
        [.readerConnectedToAnotherSession, .notConnectedToReader, .readerOffline].contains(reason)
    }

    static func refusal(_ refusal: OwnershipRefusal) -> ServiceError {
        let reason: ReaderGatewayV1.ErrorReason = switch refusal {
        case .readerBusy: .readerBusy
        case .connectedToAnotherSession: .readerConnectedToAnotherSession
        case .readerOffline: .readerOffline
        case .staleDiscovery: .staleDiscovery
        case .unknownReader: .readerNotFound
        case .notConnected: .notConnectedToReader
        }
        return ServiceError(reason, refusal.description)
    }
}
