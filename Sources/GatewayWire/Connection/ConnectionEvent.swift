import GatewayCore

/// What a ``FrameConnection`` tells its owner after bytes arrive or time passes.
public enum ConnectionEvent: Equatable, Sendable {
    /// Server: a client opened a call. Answer with messages and ``FrameConnection/endCall(_:status:trailers:)``.
    case callStarted(streamID: UInt32, ReaderGatewayV1.CallStart, deadline: WireTime?)
    /// A message of a call (serialized protobuf). Call
    /// ``FrameConnection/messageConsumed(_:byteCount:)`` once it is processed,
    /// which returns flow-control credit to the peer.
    case message(streamID: UInt32, [UInt8])
    /// Server: the client sends no more messages on this call.
    case halfClosed(streamID: UInt32)
    /// Client: the call is over, with this status (from the server's
    /// END_OF_CALL or CANCEL, or made locally for a deadline, a GOAWAY or a
    /// lost connection).
    case callEnded(streamID: UInt32, ReaderGatewayV1.CallEnd)
    /// Server: the call is over without an END_OF_CALL (client cancel,
    /// deadline, lost connection); stop its handler.
    case callCancelled(streamID: UInt32, ReaderGatewayV1.Status)
    /// The stream's queued messages were all written; it may send again.
    case writable(streamID: UInt32)
    /// Our PING was answered.
    case pingAcknowledged(roundTrip: Duration)
    /// The peer sent GOAWAY: start no calls here; calls above its last stream id were ended.
    case goAwayReceived(ReaderGatewayV1.GoAway)
    /// The connection is finished: write the pending outbound bytes, then
    /// close the transport.
    case closed(ReaderGatewayV1.Status)
}

extension ReaderGatewayV1.Status {
    /// A status with a code and message; the code comes from the reason.
    public init(_ reason: ReaderGatewayV1.ErrorReason, _ message: String) {
        self.init()
        self.code = reason.statusCode
        self.reason = reason
        self.message = message
    }

    /// OK.
    public static var ok: Self { Self() }

    /// `wait` as ``retryAfterMs`` carries it: whole milliseconds, rounded up, at least 1.
    public static func milliseconds(roundingUp wait: Duration) -> UInt64 {
        UInt64(max(1, wait.millisecondsRoundedUp))
    }
}

extension ReaderGatewayV1.CallEnd {
    /// An END_OF_CALL payload with this status and no trailers.
    public init(_ status: ReaderGatewayV1.Status) {
        self.init()
        self.status = status
    }

    /// The call's status; an END_OF_CALL without one means OK (proto3 defaults).
    public var effectiveStatus: ReaderGatewayV1.Status { status ?? .ok }
}

extension ReaderGatewayV1.GoAway {
    /// Why the peer goes away; a GOAWAY without a status means OK (graceful).
    public var effectiveStatus: ReaderGatewayV1.Status { status ?? .ok }
}
