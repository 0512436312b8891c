// The bounded label sets of the gateway's metrics.

/// Who is at the other end of a connection.
public enum ConnectionKind: Int, MetricLabelValue {
    /// A smart reader holding its long-lived connection.
    case reader
    /// A point-of-sale SDK session (a lane).
    case lane
    /// Another gateway replica.
    case peer

    public var labelValue: String {
        switch self {
        case .reader: "reader"
        case .lane: "lane"
        case .peer: "peer"
        }
    }
}

/// Where a connection is in its life.
public enum ConnectionState: Int, MetricLabelValue {
    /// Accepted; the TLS handshake is not finished.
    case handshaking
    /// Handshake done; frames flow.
    case active
    /// Told to go away; finishing what is in flight.
    case draining

    public var labelValue: String {
        switch self {
        case .handshaking: "handshaking"
        case .active: "active"
        case .draining: "draining"
        }
    }
}

/// How a TLS handshake ended.
public enum HandshakeResult: Int, MetricLabelValue {
    case success
    case failure

    public var labelValue: String {
        switch self {
        case .success: "success"
        case .failure: "failure"
        }
    }
}

/// Why a TLS handshake failed.
public enum HandshakeFailureReason: Int, MetricLabelValue {
    /// The peer did not finish within the handshake deadline.
    case timeout
    /// The peer's certificate was missing, expired or not signed by the reader CA.
    case certificate
    /// The peer spoke something other than TLS, or a version or cipher we refuse.
    case `protocol`
    /// The peer closed the connection mid-handshake.
    case closed
    /// Anything else (an internal error; see the log).
    case `internal`

    public var labelValue: String {
        switch self {
        case .timeout: "timeout"
        case .certificate: "certificate"
        case .protocol: "protocol"
        case .closed: "closed"
        case .internal: "internal"
        }
    }
}

/// The canonical status a call ended with (gRPC's codes).
public enum CallStatus: Int, MetricLabelValue {
    case ok, cancelled, unknown, invalidArgument, deadlineExceeded, notFound, alreadyExists
    case permissionDenied, resourceExhausted, failedPrecondition, aborted, outOfRange
    case unimplemented, `internal`, unavailable, dataLoss, unauthenticated

    public var labelValue: String {
        switch self {
        case .ok: "OK"
        case .cancelled: "CANCELLED"
        case .unknown: "UNKNOWN"
        case .invalidArgument: "INVALID_ARGUMENT"
        case .deadlineExceeded: "DEADLINE_EXCEEDED"
        case .notFound: "NOT_FOUND"
        case .alreadyExists: "ALREADY_EXISTS"
        case .permissionDenied: "PERMISSION_DENIED"
        case .resourceExhausted: "RESOURCE_EXHAUSTED"
        case .failedPrecondition: "FAILED_PRECONDITION"
        case .aborted: "ABORTED"
        case .outOfRange: "OUT_OF_RANGE"
        case .unimplemented: "UNIMPLEMENTED"
        case .internal: "INTERNAL"
        case .unavailable: "UNAVAILABLE"
        case .dataLoss: "DATA_LOSS"
        case .unauthenticated: "UNAUTHENTICATED"
        }
    }
}

/// What became of a lane's request to connect to (claim) a reader.
public enum ClaimOutcome: Int, MetricLabelValue {
    /// The reader was free; the lane now owns it.
    case connected
    /// Another lane owned it idle; ownership moved to this lane (Stripe's default).
    case replaced
    /// The lane asked `failIfInUse` and the reader was mid-transaction.
    case refusedBusy

    public var labelValue: String {
        switch self {
        case .connected: "connected"
        case .replaced: "replaced"
        case .refusedBusy: "refused_busy"
        }
    }
}

/// What went wrong talking to PostgreSQL.
public enum StoreErrorKind: Int, MetricLabelValue {
    /// Could not connect, or the connection broke.
    case connection
    /// A statement failed (constraint, syntax, permission).
    case query
    /// A statement or a pool checkout ran past its deadline.
    case timeout
    /// A transaction lost a serialization or lock conflict and was retried or failed.
    case conflict

    public var labelValue: String {
        switch self {
        case .connection: "connection"
        case .query: "query"
        case .timeout: "timeout"
        case .conflict: "conflict"
        }
    }
}

/// A step of handling a store that went back in time (an asynchronous standby promoted
/// without the old primary's last transactions).
public enum StoreRollbackStep: Int, MetricLabelValue {
    /// A reader's row was found behind what this replica knows.
    case detected
    /// The row was repaired: released at a generation above every one handed out.
    case repaired
    /// A session here whose ownership vanished was told (`STORE_ROLLED_BACK`).
    case sessionTold

    public var labelValue: String {
        switch self {
        case .detected: "detected"
        case .repaired: "repaired"
        case .sessionTold: "session_told"
        }
    }
}

/// What the store's connection pool connections are doing.
public enum PoolConnectionState: Int, MetricLabelValue {
    case idle
    case inUse

    public var labelValue: String {
        switch self {
        case .idle: "idle"
        case .inUse: "in_use"
        }
    }
}

/// Why an inbound frame was refused before reaching a handler.
public enum FrameRejectReason: Int, MetricLabelValue {
    /// Its declared length is over the frame size limit.
    case tooLarge
    /// It could not be decoded (bad varint, truncated field, bad protobuf).
    case malformed
    /// Its type is not one this gateway knows.
    case unknownType
    /// A valid frame that is not allowed in the connection's current state.
    case unexpected
    /// The connection sent faster than its allowance.
    case rateLimited

    public var labelValue: String {
        switch self {
        case .tooLarge: "too_large"
        case .malformed: "malformed"
        case .unknownType: "unknown_type"
        case .unexpected: "unexpected"
        case .rateLimited: "rate_limited"
        }
    }
}
