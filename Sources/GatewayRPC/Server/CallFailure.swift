import GatewayChannel
import GatewayWire

/// An error a method's handler throws to end its call: the status its END_OF_CALL carries.
/// Services keep their own error types and conform them; the call layer's own is ``RPCError``,
/// which a unary handler's error becomes on its way to the peer.
public protocol CallFailure: Error {
    /// The status the call ends with (never OK).
    var status: ReaderGatewayV1.Status { get }
}

extension RPCError: CallFailure {
    /// The status this error ends a call with (its code, reason and message; the cause stays here).
    public var status: ReaderGatewayV1.Status {
        var status = ReaderGatewayV1.Status(reason, message)
        status.code = code
        status.retryAfterMs = retryAfterMs
        status.declineCode = declineCode ?? ""
        return status
    }
}
