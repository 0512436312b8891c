/// An error of the wire layer: a malformed protobuf message, a malformed or
/// oversized frame, or a peer that broke the protocol.
///
/// Every error carries the gRPC canonical status and the precise
/// ``ReaderGatewayV1/ErrorReason`` a connection reports to its peer when it
/// fails because of it (in an END_OF_CALL, CANCEL or GOAWAY frame).
public struct WireError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong, as a stable, extensible code.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: Hashable, Sendable {
            case truncated, varintTooLong, varintOverflow, invalidFieldNumber, invalidWireType
            case wrongWireType, invalidUTF8, nestingTooDeep, unexpectedEndGroup, messageTooLarge
            case frameTooLarge, unknownFrameType, invalidFrame, invalidPreface, streamIDInvalid
            case streamStateInvalid, headerTooLarge, flowControlViolation, tooManyStreams
            case connectionClosing, queueFull, unknownStream, invalidUse, tooManyPings, keepaliveTimeout
        }
        private let value: Value
        private init(_ value: Value) { self.value = value }

        /// The input ended inside a value (a varint, a length-delimited field, a group).
        public static let truncated = Code(.truncated)
        /// A varint ran past 10 bytes.
        public static let varintTooLong = Code(.varintTooLong)
        /// A 10-byte varint carried bits beyond 64.
        public static let varintOverflow = Code(.varintOverflow)
        /// A field number of 0 or above 2^29 - 1.
        public static let invalidFieldNumber = Code(.invalidFieldNumber)
        /// A wire type of 6 or 7.
        public static let invalidWireType = Code(.invalidWireType)
        /// A known field arrived with a wire type its declaration does not allow.
        public static let wrongWireType = Code(.wrongWireType)
        /// A string field is not valid UTF-8.
        public static let invalidUTF8 = Code(.invalidUTF8)
        /// Messages (or groups) nest deeper than the decoder's limit.
        public static let nestingTooDeep = Code(.nestingTooDeep)
        /// An END_GROUP tag without a matching START_GROUP.
        public static let unexpectedEndGroup = Code(.unexpectedEndGroup)
        /// A message is larger than the receiver accepts.
        public static let messageTooLarge = Code(.messageTooLarge)
        /// A frame header announces a payload above the max frame size.
        public static let frameTooLarge = Code(.frameTooLarge)
        /// A frame type this protocol version does not define.
        public static let unknownFrameType = Code(.unknownFrameType)
        /// A frame with bad flags, a bad payload or on the wrong stream.
        public static let invalidFrame = Code(.invalidFrame)
        /// The connection did not start with the protocol preface.
        public static let invalidPreface = Code(.invalidPreface)
        /// A stream id that is reused, out of order, even, or zero.
        public static let streamIDInvalid = Code(.streamIDInvalid)
        /// A frame not allowed in the stream's state.
        public static let streamStateInvalid = Code(.streamStateInvalid)
        /// A CALL_START payload above the max header size.
        public static let headerTooLarge = Code(.headerTooLarge)
        /// A MESSAGE frame beyond the flow-control window.
        public static let flowControlViolation = Code(.flowControlViolation)
        /// More concurrent streams than announced.
        public static let tooManyStreams = Code(.tooManyStreams)

        /// The connection is draining (GOAWAY) or closed: start the call on a new connection.
        public static let connectionClosing = Code(.connectionClosing)
        /// A stream's outbound queue is full: the peer is not reading; slow down.
        public static let queueFull = Code(.queueFull)
        /// The stream id names no open call (it ended, or never existed).
        public static let unknownStream = Code(.unknownStream)
        /// An operation that this role or state does not allow (a server starting a call).
        public static let invalidUse = Code(.invalidUse)

        /// The peer pinged more often than the ping policy allows.
        public static let tooManyPings = Code(.tooManyPings)
        /// The peer did not answer a keepalive PING in time.
        public static let keepaliveTimeout = Code(.keepaliveTimeout)

        public var description: String { String(describing: value) }
    }

    /// What went wrong.
    public var code: Code
    /// What happened and what to do, for humans.
    public var message: String
    /// The byte offset in the input where the problem was found, when known.
    public var offset: Int?

    public init(code: Code, message: String, offset: Int? = nil) {
        self.code = code
        self.message = message
        self.offset = offset
    }

    /// The reason a connection reports to its peer for this error.
    public var reason: ReaderGatewayV1.ErrorReason {
        switch code {
        case .frameTooLarge: .frameTooLarge
        case .unknownFrameType: .unknownFrameType
        case .invalidFrame: .protocolError
        case .invalidPreface: .unsupportedProtocol
        case .streamIDInvalid: .streamIDInvalid
        case .streamStateInvalid: .streamStateInvalid
        case .headerTooLarge: .headerTooLarge
        case .flowControlViolation: .flowControlViolation
        case .tooManyStreams: .tooManyStreams
        case .messageTooLarge: .messageTooLarge
        case .connectionClosing: .goingAway
        case .queueFull: .rateLimited
        case .unknownStream: .streamStateInvalid
        case .invalidUse: .internal
        case .tooManyPings: .tooManyPings
        case .keepaliveTimeout: .keepaliveTimeout
        default: .malformedMessage
        }
    }

    /// The canonical status code paired with ``reason``.
    public var statusCode: ReaderGatewayV1.StatusCode { reason.statusCode }

    /// The status a connection sends to its peer for this error.
    public var status: ReaderGatewayV1.Status {
        var status = ReaderGatewayV1.Status()
        status.code = statusCode
        status.reason = reason
        status.message = message
        return status
    }

    public var description: String {
        if let offset { return "\(code) at byte \(offset): \(message)" }
        return "\(code): \(message)"
    }
}
