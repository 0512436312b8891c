import GatewayClient

/// gatewayctl's exit statuses (sysexits.h), so scripts can tell failures apart.
public enum ExitCode: Int32, Sendable {
    /// Success.
    case ok = 0
    /// A command line that cannot be used (EX_USAGE).
    case usage = 64
    /// Bad input or something that does not exist: unknown reader, invalid code (EX_DATAERR).
    case dataError = 65
    /// The gateway or the database cannot be reached (EX_UNAVAILABLE).
    case unavailable = 69
    /// A bug or an unexpected answer (EX_SOFTWARE).
    case software = 70
    /// A missing or wrong secret key, not allowed, or locked out after too many wrong keys (EX_NOPERM).
    case permission = 77

    /// The status for a failed call.
    public init(_ error: RPCError) {
        if error.reason == .authenticationRateLimited {
            self = .permission
            return
        }
        switch error.code {
        case .unavailable, .deadlineExceeded, .cancelled: self = .unavailable
        case .unauthenticated, .permissionDenied: self = .permission
        case .invalidArgument, .notFound, .alreadyExists, .failedPrecondition, .aborted, .outOfRange, .resourceExhausted: self = .dataError
        default: self = .software
        }
    }
}
