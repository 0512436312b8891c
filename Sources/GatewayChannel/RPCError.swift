import GatewayWire

/// How a call failed: the gRPC status code, the shared error reason and a message.
///
/// Every failure of a ``ClientChannel`` call surfaces as an `RPCError`, whether the
/// server ended the call (END_OF_CALL), the call hit its deadline, the task was
/// cancelled, or the connection went away. Switch on ``reason`` for precise
/// handling (`.readerBusy`, `.staleDiscovery`, ...) and on ``code`` for generic
/// handling (retry, re-authenticate, give up).
public struct RPCError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The canonical status code.
    public var code: ReaderGatewayV1.StatusCode
    /// The precise reason, shared by every surface.
    public var reason: ReaderGatewayV1.ErrorReason
    /// What happened and what to do, for humans.
    public var message: String
    /// A lower-level error that led to this one (transport, decoding), if any.
    public var cause: String?
    /// For a refusal that ends by itself (a rate limit): how many milliseconds the same call
    /// stays refused (the status's `retry_after_ms`); 0 when no wait is known.
    public var retryAfterMs: UInt64 = 0
    /// For `CARD_DECLINED`: why the card was declined, as Stripe names it (`generic_decline`,
    /// `insufficient_funds`, ...; the status's `decline_code`); nil for every other error.
    public var declineCode: String?

    public init(code: ReaderGatewayV1.StatusCode, reason: ReaderGatewayV1.ErrorReason, message: String, cause: String? = nil) {
        self.code = code
        self.reason = reason
        self.message = message
        self.cause = cause
    }

    /// An error with the status code that belongs to `reason`.
    public init(_ reason: ReaderGatewayV1.ErrorReason, _ message: String, cause: String? = nil) {
        self.init(code: reason.statusCode, reason: reason, message: message, cause: cause)
    }

    /// The error a non-OK wire status stands for.
    public init(status: ReaderGatewayV1.Status) {
        self.init(code: status.code, reason: status.reason, message: status.message.isEmpty ? "the call failed with \(status.code)" : status.message)
        retryAfterMs = status.retryAfterMs
        declineCode = status.declineCode.isEmpty ? nil : status.declineCode
    }

    /// Whether the call certainly had no effect on the server, so it may be sent again as is
    /// (the server refused it before processing: too many streams, GOAWAY before it started,
    /// no connection).
    public var isRetryable: Bool {
        guard code == .unavailable else { return false }
        switch reason {
        case .tooManyStreams, .goingAway, .connectionLost, .keepaliveTimeout, .storeUnavailable, .readerLinkMoved, .unspecified: return true
        default: return false
        }
    }

    /// Whether an idempotent call may be retried after this error (any UNAVAILABLE).
    public var isRetryableForIdempotentCall: Bool { code == .unavailable }

    /// The status code's short name, e.g. `UNAUTHENTICATED`.
    public var codeName: String { code.protoName.map(Self.short) ?? "\(code.rawValue)" }

    /// The reason's short name, e.g. `SECRET_KEY_INVALID`.
    public var reasonName: String { reason.protoName.map(Self.short) ?? "\(reason.rawValue)" }

    public var description: String {
        var text = "\(codeName)/\(reasonName): \(message)"
        if let declineCode { text += " (decline code: \(declineCode))" }
        if let cause { text += " (cause: \(cause))" }
        return text
    }

    static func short(_ name: String) -> String {
        for prefix in ["STATUS_CODE_", "ERROR_REASON_"] where name.hasPrefix(prefix) {
            return String(name.dropFirst(prefix.count))
        }
        return name
    }

    // MARK: errors made on the client

    static func cancelled(_ message: String = "the call was cancelled by its caller") -> RPCError {
        RPCError(code: .cancelled, reason: .cancelledByPeer, message: message)
    }

    package static func unavailable(_ reason: ReaderGatewayV1.ErrorReason, _ message: String, cause: String? = nil) -> RPCError {
        RPCError(code: .unavailable, reason: reason, message: message, cause: cause)
    }

    static func malformedResponse(_ method: String, _ error: any Error) -> RPCError {
        RPCError(.malformedMessage, "the response of \(method) could not be decoded; is the server speaking the same protocol version?", cause: "\(error)")
    }

    static func from(_ error: WireError) -> RPCError {
        RPCError(code: error.statusCode, reason: error.reason, message: error.message)
    }
}
