// Generated from readergateway/v1/errors.proto by proto/tools/generate_swift.py. DO NOT EDIT.
// Regenerate with `make generate-proto`; `make test` fails when this file drifts.

// swiftlint:disable all

extension ReaderGatewayV1 {

    /// The gRPC canonical status codes, numbered exactly as `google.rpc.Code`.
    ///
    /// Unlike most enums here, the zero value is a real value: OK, as in gRPC.
    public struct StatusCode: ProtobufEnum {
        public var rawValue: Int32
        public init(rawValue: Int32) { self.rawValue = rawValue }
        /// The call succeeded.
        public static let ok = StatusCode(rawValue: 0)
        /// The call was cancelled, typically by the caller.
        public static let cancelled = StatusCode(rawValue: 1)
        /// An error that fits no other code.
        public static let unknown = StatusCode(rawValue: 2)
        /// The request is invalid whatever the state of the system.
        public static let invalidArgument = StatusCode(rawValue: 3)
        /// The deadline expired before the call completed.
        public static let deadlineExceeded = StatusCode(rawValue: 4)
        /// A requested entity (reader, location, session) does not exist.
        public static let notFound = StatusCode(rawValue: 5)
        /// The entity a caller tried to create already exists.
        public static let alreadyExists = StatusCode(rawValue: 6)
        /// The caller is authenticated but may not do this.
        public static let permissionDenied = StatusCode(rawValue: 7)
        /// A limit was hit (rate, size, number of streams).
        public static let resourceExhausted = StatusCode(rawValue: 8)
        /// The system is not in the state the call needs; do not retry until it is.
        public static let failedPrecondition = StatusCode(rawValue: 9)
        /// A conflict (for example with another lane); retry at a higher level.
        public static let aborted = StatusCode(rawValue: 10)
        /// A value is outside its valid range.
        public static let outOfRange = StatusCode(rawValue: 11)
        /// The method is not implemented or not known.
        public static let unimplemented = StatusCode(rawValue: 12)
        /// An invariant broke: a bug or a malformed peer.
        public static let `internal` = StatusCode(rawValue: 13)
        /// Transient: retry with backoff.
        public static let unavailable = StatusCode(rawValue: 14)
        /// Unrecoverable data loss.
        public static let dataLoss = StatusCode(rawValue: 15)
        /// No valid credentials (connection token, secret key, reader credential).
        public static let unauthenticated = StatusCode(rawValue: 16)
        /// Every value this version knows, in declaration order.
        public static let knownValues: [StatusCode] = [.ok, .cancelled, .unknown, .invalidArgument, .deadlineExceeded, .notFound, .alreadyExists, .permissionDenied, .resourceExhausted, .failedPrecondition, .aborted, .outOfRange, .unimplemented, .internal, .unavailable, .dataLoss, .unauthenticated]
        /// The value's name in the .proto file, or nil for a value this version does not know.
        public var protoName: String? {
            switch rawValue {
            case 0: "STATUS_CODE_OK"
            case 1: "STATUS_CODE_CANCELLED"
            case 2: "STATUS_CODE_UNKNOWN"
            case 3: "STATUS_CODE_INVALID_ARGUMENT"
            case 4: "STATUS_CODE_DEADLINE_EXCEEDED"
            case 5: "STATUS_CODE_NOT_FOUND"
            case 6: "STATUS_CODE_ALREADY_EXISTS"
            case 7: "STATUS_CODE_PERMISSION_DENIED"
            case 8: "STATUS_CODE_RESOURCE_EXHAUSTED"
            case 9: "STATUS_CODE_FAILED_PRECONDITION"
            case 10: "STATUS_CODE_ABORTED"
            case 11: "STATUS_CODE_OUT_OF_RANGE"
            case 12: "STATUS_CODE_UNIMPLEMENTED"
            case 13: "STATUS_CODE_INTERNAL"
            case 14: "STATUS_CODE_UNAVAILABLE"
            case 15: "STATUS_CODE_DATA_LOSS"
            case 16: "STATUS_CODE_UNAUTHENTICATED"
            default: nil
            }
        }
    }

    /// Why a call failed: precise, stable, safe to switch on.
    ///
    /// Reasons 1 to 99 are product reasons, 100 and up are protocol reasons (the
    /// frame layer). A client that meets a reason it does not know falls back to
    /// the status code.
    public struct ErrorReason: ProtobufEnum {
        public var rawValue: Int32
        public init(rawValue: Int32) { self.rawValue = rawValue }
        /// No reason given; look at the status code.
        /// Status: UNKNOWN.
        public static let unspecified = ErrorReason(rawValue: 0)
        /// The connection token is unknown, malformed or belongs to another account.
        /// Status: UNAUTHENTICATED.
        public static let connectionTokenInvalid = ErrorReason(rawValue: 1)
        /// The connection token expired; mint a new one from your backend.
        /// Status: UNAUTHENTICATED.
        public static let connectionTokenExpired = ErrorReason(rawValue: 2)
        /// The secret key of the admin surface is missing or wrong.
        /// Status: UNAUTHENTICATED.
        public static let secretKeyInvalid = ErrorReason(rawValue: 3)
        /// The session is gone (its lease ran out or it was closed); open a new one.
        /// Status: FAILED_PRECONDITION.
        public static let sessionExpired = ErrorReason(rawValue: 4)
        /// The credential is valid but not for this location or operation.
        /// Status: PERMISSION_DENIED.
        public static let permissionDenied = ErrorReason(rawValue: 5)
        /// Too many requests of this kind (for example discovery floods); slow down.
        /// Status: RESOURCE_EXHAUSTED.
        public static let rateLimited = ErrorReason(rawValue: 6)
        /// A field is missing or invalid; the message names it.
        /// Status: INVALID_ARGUMENT.
        public static let invalidRequest = ErrorReason(rawValue: 7)
        /// The session was resumed (OpenSession with its resume token) on another
        /// connection, possibly on another replica, which now holds it: this call's
        /// view of the session is over. Subscribe and call on the connection where it
        /// was resumed; nothing was lost (the session and its reader are kept).
        /// Status: UNAVAILABLE.
        public static let sessionMoved = ErrorReason(rawValue: 8)
        /// The secret key was rolled and its overlap ended, was revoked, or expired:
        /// the message says which and when. Use the key's current secret, or a
        /// new key.
        /// Status: UNAUTHENTICATED.
        public static let secretKeyRetired = ErrorReason(rawValue: 9)
        /// The reader is mid-transaction for another session and the caller set
        /// fail_if_in_use. Ask the user, then retry with fail_if_in_use = false.
        /// Status: ABORTED.
        public static let readerBusy = ErrorReason(rawValue: 10)
        /// This session no longer owns the reader: another session connected to it.
        /// Status: FAILED_PRECONDITION.
        public static let readerConnectedToAnotherSession = ErrorReason(rawValue: 11)
        /// The reader is not attached to the gateway (powered off, network lost).
        /// Status: UNAVAILABLE.
        public static let readerOffline = ErrorReason(rawValue: 12)
        /// No reader with this id in this account.
        /// Status: NOT_FOUND.
        public static let readerNotFound = ErrorReason(rawValue: 13)
        /// The reader did not come from this session's latest discovery: a newer
        /// DiscoverReaders superseded the discovery it came from, the latest discovery
        /// has not answered, or the reader was not in its answer. Connect a reader
        /// from the latest DiscoverReaders answer (discover again if there is none).
        /// Status: FAILED_PRECONDITION.
        public static let staleDiscovery = ErrorReason(rawValue: 14)
        /// No longer sent: a new DiscoverReaders supersedes the session's previous
        /// discovery instead of failing (see DISCOVERY_CANCELED). Kept so that clients
        /// written for earlier gateways still decode it.
        /// Status: FAILED_PRECONDITION.
        public static let discoveryAlreadyInProgress = ErrorReason(rawValue: 15)
        /// The session has no connected reader; connect one first.
        /// Status: FAILED_PRECONDITION.
        public static let notConnectedToReader = ErrorReason(rawValue: 16)
        /// The session is already connected to a reader; disconnect it first.
        /// Status: FAILED_PRECONDITION.
        public static let alreadyConnectedToReader = ErrorReason(rawValue: 17)
        /// Mobile and tap-to-pay readers need a location id to connect.
        /// Status: INVALID_ARGUMENT.
        public static let locationRequired = ErrorReason(rawValue: 18)
        /// No location with this id in this account.
        /// Status: NOT_FOUND.
        public static let locationNotFound = ErrorReason(rawValue: 19)
        /// The discovery ended before it answered: CancelDiscovery cancelled it, or a
        /// newer DiscoverReaders on the same session superseded it (the message says
        /// which). Use the newer discovery's answer, or discover again.
        /// Status: CANCELLED.
        public static let discoveryCanceled = ErrorReason(rawValue: 20)
        /// The command was cancelled (cancel collect, or the session went away).
        /// Status: CANCELLED.
        public static let commandCanceled = ErrorReason(rawValue: 30)
        /// The reader reported a failure (card removed, card unreadable, ...). A
        /// decline is CARD_DECLINED; a reader older than that reason reports its
        /// declines here.
        /// Status: ABORTED.
        public static let readerError = ErrorReason(rawValue: 31)
        /// The reader did not answer in time.
        /// Status: DEADLINE_EXCEEDED.
        public static let readerTimeout = ErrorReason(rawValue: 32)
        /// The reader cannot run this command in its current state.
        /// Status: FAILED_PRECONDITION.
        public static let readerNotReady = ErrorReason(rawValue: 33)
        /// The registration code is unknown, expired or already used.
        /// Status: INVALID_ARGUMENT.
        public static let registrationCodeInvalid = ErrorReason(rawValue: 50)
        /// A reader with this serial number is already registered.
        /// Status: ALREADY_EXISTS.
        public static let readerAlreadyRegistered = ErrorReason(rawValue: 51)
        /// The serial number is not proven by a client certificate from the reader CA.
        /// Status: UNAUTHENTICATED.
        public static let serialNotProven = ErrorReason(rawValue: 52)
        /// The reader credential is unknown or revoked.
        /// Status: UNAUTHENTICATED.
        public static let readerCredentialInvalid = ErrorReason(rawValue: 53)
        /// A newer link from the same reader replaced this one.
        /// Status: ABORTED.
        public static let readerLinkReplaced = ErrorReason(rawValue: 54)
        /// The ownership generation the caller expected is no longer current.
        /// Status: ABORTED.
        public static let ownershipChanged = ErrorReason(rawValue: 55)
        /// The ownership store (PostgreSQL) cannot be reached; retry with backoff.
        /// Status: UNAVAILABLE.
        public static let storeUnavailable = ErrorReason(rawValue: 56)
        /// A bug in the gateway; the message carries a correlation id.
        /// Status: INTERNAL.
        public static let `internal` = ErrorReason(rawValue: 57)
        /// The reader's link moved to another replica (or its replica went away)
        /// while the command was on its way; retry it.
        /// Status: UNAVAILABLE.
        public static let readerLinkMoved = ErrorReason(rawValue: 58)
        /// A replica-to-replica call without a certificate from the internal CA.
        /// Status: PERMISSION_DENIED.
        public static let notAReplica = ErrorReason(rawValue: 59)
        /// The device cannot be a Tap to Pay reader: its model or operating system
        /// version is not on the supported list (the message says which). Use a
        /// supported phone, or update the operating system.
        /// Status: FAILED_PRECONDITION.
        public static let tapToPayUnsupportedDevice = ErrorReason(rawValue: 60)
        /// The device already served 3 other accounts within the last 24 hours
        /// (Stripe's TapToPayReaderMerchantBlocked: 3 unique accounts per device in
        /// a rolling 24 hours). An account uses the device at each admitted connect
        /// and stays in the window until its last use is 24 hours old. Use another
        /// device, or connect again once the oldest of those accounts' last use is
        /// 24 hours old (the message says when).
        /// Status: RESOURCE_EXHAUSTED.
        public static let tapToPayReaderMerchantBlocked = ErrorReason(rawValue: 61)
        /// The account has not accepted the Tap to Pay terms yet and the connect did
        /// not permit accepting them (tos_acceptance_permitted = false). Connect once
        /// with tos_acceptance_permitted = true, on any device.
        /// Status: FAILED_PRECONDITION.
        public static let tapToPayReaderTosAcceptanceCanceled = ErrorReason(rawValue: 62)
        /// The reader could not install a software update (the message says why)
        /// and, for a required update during ConnectReader, it has not run its
        /// location's latest version within the last 30 days, so it may not be
        /// connected. Connect again: the update is retried.
        /// Status: ABORTED.
        public static let readerSoftwareUpdateFailed = ErrorReason(rawValue: 63)
        /// A required update cannot install because the reader's battery is at or
        /// below 50 %; the connect fails. Charge the reader, then connect again.
        /// Status: FAILED_PRECONDITION.
        public static let readerSoftwareUpdateFailedBatteryLow = ErrorReason(rawValue: 64)
        /// The reader's link ended while it installed an update (powered off, out of
        /// range). Connect again: the update is retried.
        /// Status: UNAVAILABLE.
        public static let readerSoftwareUpdateFailedInterrupted = ErrorReason(rawValue: 65)
        /// No update of that device type and version is in the account's catalog.
        /// List the catalog (FleetAdmin.ListSoftwareUpdates).
        /// Status: NOT_FOUND.
        public static let softwareUpdateNotFound = ErrorReason(rawValue: 66)
        /// The Bluetooth reader is bonded to another point-of-sale device, which is
        /// connected to it (or still holds it while it reconnects). A Bluetooth
        /// reader talks to one device at a time: disconnect it on that device (or
        /// wait until that device's reconnect gives up), then connect here.
        /// Status: FAILED_PRECONDITION.
        public static let bluetoothAlreadyPairedWithAnotherDevice = ErrorReason(rawValue: 67)
        /// Pairing with the Bluetooth reader failed: the passkey was rejected on the
        /// reader, declined on the device, or did not match. Check that both show
        /// the same 6 digits, select Confirm on the reader and Pair on the device.
        /// Raised by the client library. Status: FAILED_PRECONDITION.
        public static let bluetoothPairingFailed = ErrorReason(rawValue: 68)
        /// The Bluetooth reader did not come within reach in time (powered off, out
        /// of range, or Bluetooth is off on the device). Power it on, bring it close,
        /// turn Bluetooth on, and discover again. Raised by the client library.
        /// Status: UNAVAILABLE.
        public static let bluetoothConnectTimedOut = ErrorReason(rawValue: 69)
        /// The peer did not read a stream's messages and the gateway's bounded
        /// buffer for that call filled (a slow WatchFleet watcher). Only this call
        /// ends; read faster (or watch one location), then call again.
        /// Status: RESOURCE_EXHAUSTED.
        public static let consumerTooSlow = ErrorReason(rawValue: 70)
        /// No event with that id in this account's log (an id from another account
        /// is answered the same). List events (FleetAdmin.ListEvents) to find it.
        /// Status: NOT_FOUND.
        public static let eventNotFound = ErrorReason(rawValue: 71)
        /// No secret key with this id in this account.
        /// Status: NOT_FOUND.
        public static let apiKeyNotFound = ErrorReason(rawValue: 75)
        /// Too many failed authentications (wrong or retired secret keys, unknown
        /// console sessions) came from this source address, or named this account:
        /// it is locked out until the retry-after the message gives ("retry in N
        /// ms"), and its calls are refused before their key is looked at. Correct
        /// keys from other addresses are not affected. See PROTOCOL.md section 22.
        /// Status: RESOURCE_EXHAUSTED.
        public static let authenticationRateLimited = ErrorReason(rawValue: 76)
        /// No webhook endpoint with this id in this account. List them
        /// (FleetAdmin.ListWebhookEndpoints) to find its id.
        /// Status: NOT_FOUND.
        public static let webhookEndpointNotFound = ErrorReason(rawValue: 80)
        /// The card was declined: by the reader or the card's issuer at collect
        /// (Stripe Terminal's declinedByReader), or at confirm (declinedByStripeAPI).
        /// `Status.decline_code` says why, as Stripe names it (`generic_decline`,
        /// `insufficient_funds`, `expired_card`, ...). The reader works: ask for
        /// another card (or payment method) and collect again; the same card as it
        /// is will be declined again, so do not retry the call by itself.
        /// Status: FAILED_PRECONDITION.
        public static let cardDeclined = ErrorReason(rawValue: 81)
        /// A frame broke the protocol (bad flags, bad payload, wrong stream 0 use).
        /// Status: INTERNAL.
        public static let protocolError = ErrorReason(rawValue: 100)
        /// A frame's length is above the receiver's max frame size.
        /// Status: RESOURCE_EXHAUSTED.
        public static let frameTooLarge = ErrorReason(rawValue: 101)
        /// The frame type is not defined by this protocol version.
        /// Status: INTERNAL.
        public static let unknownFrameType = ErrorReason(rawValue: 102)
        /// A protobuf payload could not be decoded (bad varint, wrong wire type,
        /// invalid UTF-8, nesting too deep, truncated).
        /// Status: INTERNAL.
        public static let malformedMessage = ErrorReason(rawValue: 103)
        /// A message is larger than the receiver accepts.
        /// Status: RESOURCE_EXHAUSTED.
        public static let messageTooLarge = ErrorReason(rawValue: 104)
        /// A stream id was reused, out of order, even, or zero where a stream is needed.
        /// Status: INTERNAL.
        public static let streamIDInvalid = ErrorReason(rawValue: 105)
        /// A frame arrived for a stream in a state that does not allow it.
        /// Status: INTERNAL.
        public static let streamStateInvalid = ErrorReason(rawValue: 106)
        /// The peer's max concurrent streams was reached; the call was not started,
        /// so it is safe to retry.
        /// Status: UNAVAILABLE.
        public static let tooManyStreams = ErrorReason(rawValue: 107)
        /// The sender overran its flow-control window.
        /// Status: INTERNAL.
        public static let flowControlViolation = ErrorReason(rawValue: 108)
        /// Call metadata (method, metadata entries) is above the header size limit.
        /// Status: RESOURCE_EXHAUSTED.
        public static let headerTooLarge = ErrorReason(rawValue: 109)
        /// No such method path on this server.
        /// Status: UNIMPLEMENTED.
        public static let methodNotFound = ErrorReason(rawValue: 110)
        /// The call's deadline passed.
        /// Status: DEADLINE_EXCEEDED.
        public static let deadlineExceeded = ErrorReason(rawValue: 111)
        /// The peer cancelled the call.
        /// Status: CANCELLED.
        public static let cancelledByPeer = ErrorReason(rawValue: 112)
        /// The connection is closing (GOAWAY); calls above its last stream id were
        /// not processed and may be retried on a new connection.
        /// Status: UNAVAILABLE.
        public static let goingAway = ErrorReason(rawValue: 113)
        /// The peer did not answer a keepalive ping in time.
        /// Status: UNAVAILABLE.
        public static let keepaliveTimeout = ErrorReason(rawValue: 114)
        /// The client pinged more often than the server allows ("too_many_pings").
        /// Status: RESOURCE_EXHAUSTED.
        public static let tooManyPings = ErrorReason(rawValue: 115)
        /// The connection preface is not ours or names an unsupported version.
        /// Status: UNIMPLEMENTED.
        public static let unsupportedProtocol = ErrorReason(rawValue: 116)
        /// The transport closed under the call.
        /// Status: UNAVAILABLE.
        public static let connectionLost = ErrorReason(rawValue: 117)
        /// Every value this version knows, in declaration order.
        public static let knownValues: [ErrorReason] = [.unspecified, .connectionTokenInvalid, .connectionTokenExpired, .secretKeyInvalid, .sessionExpired, .permissionDenied, .rateLimited, .invalidRequest, .sessionMoved, .secretKeyRetired, .readerBusy, .readerConnectedToAnotherSession, .readerOffline, .readerNotFound, .staleDiscovery, .discoveryAlreadyInProgress, .notConnectedToReader, .alreadyConnectedToReader, .locationRequired, .locationNotFound, .discoveryCanceled, .commandCanceled, .readerError, .readerTimeout, .readerNotReady, .registrationCodeInvalid, .readerAlreadyRegistered, .serialNotProven, .readerCredentialInvalid, .readerLinkReplaced, .ownershipChanged, .storeUnavailable, .internal, .readerLinkMoved, .notAReplica, .tapToPayUnsupportedDevice, .tapToPayReaderMerchantBlocked, .tapToPayReaderTosAcceptanceCanceled, .readerSoftwareUpdateFailed, .readerSoftwareUpdateFailedBatteryLow, .readerSoftwareUpdateFailedInterrupted, .softwareUpdateNotFound, .bluetoothAlreadyPairedWithAnotherDevice, .bluetoothPairingFailed, .bluetoothConnectTimedOut, .consumerTooSlow, .eventNotFound, .apiKeyNotFound, .authenticationRateLimited, .webhookEndpointNotFound, .cardDeclined, .protocolError, .frameTooLarge, .unknownFrameType, .malformedMessage, .messageTooLarge, .streamIDInvalid, .streamStateInvalid, .tooManyStreams, .flowControlViolation, .headerTooLarge, .methodNotFound, .deadlineExceeded, .cancelledByPeer, .goingAway, .keepaliveTimeout, .tooManyPings, .unsupportedProtocol, .connectionLost]
        /// The value's name in the .proto file, or nil for a value this version does not know.
        public var protoName: String? {
            switch rawValue {
            case 0: "ERROR_REASON_UNSPECIFIED"
            case 1: "ERROR_REASON_CONNECTION_TOKEN_INVALID"
            case 2: "ERROR_REASON_CONNECTION_TOKEN_EXPIRED"
            case 3: "ERROR_REASON_SECRET_KEY_INVALID"
            case 4: "ERROR_REASON_SESSION_EXPIRED"
            case 5: "ERROR_REASON_PERMISSION_DENIED"
            case 6: "ERROR_REASON_RATE_LIMITED"
            case 7: "ERROR_REASON_INVALID_REQUEST"
            case 8: "ERROR_REASON_SESSION_MOVED"
            case 9: "ERROR_REASON_SECRET_KEY_RETIRED"
            case 10: "ERROR_REASON_READER_BUSY"
            case 11: "ERROR_REASON_READER_CONNECTED_TO_ANOTHER_SESSION"
            case 12: "ERROR_REASON_READER_OFFLINE"
            case 13: "ERROR_REASON_READER_NOT_FOUND"
            case 14: "ERROR_REASON_STALE_DISCOVERY"
            case 15: "ERROR_REASON_DISCOVERY_ALREADY_IN_PROGRESS"
            case 16: "ERROR_REASON_NOT_CONNECTED_TO_READER"
            case 17: "ERROR_REASON_ALREADY_CONNECTED_TO_READER"
            case 18: "ERROR_REASON_LOCATION_REQUIRED"
            case 19: "ERROR_REASON_LOCATION_NOT_FOUND"
            case 20: "ERROR_REASON_DISCOVERY_CANCELED"
            case 30: "ERROR_REASON_COMMAND_CANCELED"
            case 31: "ERROR_REASON_READER_ERROR"
            case 32: "ERROR_REASON_READER_TIMEOUT"
            case 33: "ERROR_REASON_READER_NOT_READY"
            case 50: "ERROR_REASON_REGISTRATION_CODE_INVALID"
            case 51: "ERROR_REASON_READER_ALREADY_REGISTERED"
            case 52: "ERROR_REASON_SERIAL_NOT_PROVEN"
            case 53: "ERROR_REASON_READER_CREDENTIAL_INVALID"
            case 54: "ERROR_REASON_READER_LINK_REPLACED"
            case 55: "ERROR_REASON_OWNERSHIP_CHANGED"
            case 56: "ERROR_REASON_STORE_UNAVAILABLE"
            case 57: "ERROR_REASON_INTERNAL"
            case 58: "ERROR_REASON_READER_LINK_MOVED"
            case 59: "ERROR_REASON_NOT_A_REPLICA"
            case 60: "ERROR_REASON_TAP_TO_PAY_UNSUPPORTED_DEVICE"
            case 61: "ERROR_REASON_TAP_TO_PAY_READER_MERCHANT_BLOCKED"
            case 62: "ERROR_REASON_TAP_TO_PAY_READER_TOS_ACCEPTANCE_CANCELED"
            case 63: "ERROR_REASON_READER_SOFTWARE_UPDATE_FAILED"
            case 64: "ERROR_REASON_READER_SOFTWARE_UPDATE_FAILED_BATTERY_LOW"
            case 65: "ERROR_REASON_READER_SOFTWARE_UPDATE_FAILED_INTERRUPTED"
            case 66: "ERROR_REASON_SOFTWARE_UPDATE_NOT_FOUND"
            case 67: "ERROR_REASON_BLUETOOTH_ALREADY_PAIRED_WITH_ANOTHER_DEVICE"
            case 68: "ERROR_REASON_BLUETOOTH_PAIRING_FAILED"
            case 69: "ERROR_REASON_BLUETOOTH_CONNECT_TIMED_OUT"
            case 70: "ERROR_REASON_CONSUMER_TOO_SLOW"
            case 71: "ERROR_REASON_EVENT_NOT_FOUND"
            case 75: "ERROR_REASON_API_KEY_NOT_FOUND"
            case 76: "ERROR_REASON_AUTHENTICATION_RATE_LIMITED"
            case 80: "ERROR_REASON_WEBHOOK_ENDPOINT_NOT_FOUND"
            case 81: "ERROR_REASON_CARD_DECLINED"
            case 100: "ERROR_REASON_PROTOCOL_ERROR"
            case 101: "ERROR_REASON_FRAME_TOO_LARGE"
            case 102: "ERROR_REASON_UNKNOWN_FRAME_TYPE"
            case 103: "ERROR_REASON_MALFORMED_MESSAGE"
            case 104: "ERROR_REASON_MESSAGE_TOO_LARGE"
            case 105: "ERROR_REASON_STREAM_ID_INVALID"
            case 106: "ERROR_REASON_STREAM_STATE_INVALID"
            case 107: "ERROR_REASON_TOO_MANY_STREAMS"
            case 108: "ERROR_REASON_FLOW_CONTROL_VIOLATION"
            case 109: "ERROR_REASON_HEADER_TOO_LARGE"
            case 110: "ERROR_REASON_METHOD_NOT_FOUND"
            case 111: "ERROR_REASON_DEADLINE_EXCEEDED"
            case 112: "ERROR_REASON_CANCELLED_BY_PEER"
            case 113: "ERROR_REASON_GOING_AWAY"
            case 114: "ERROR_REASON_KEEPALIVE_TIMEOUT"
            case 115: "ERROR_REASON_TOO_MANY_PINGS"
            case 116: "ERROR_REASON_UNSUPPORTED_PROTOCOL"
            case 117: "ERROR_REASON_CONNECTION_LOST"
            default: nil
            }
        }
        /// The canonical status code this reason is always paired with.
        public var statusCode: StatusCode {
            switch self {
            case .unspecified: .unknown
            case .connectionTokenInvalid: .unauthenticated
            case .connectionTokenExpired: .unauthenticated
            case .secretKeyInvalid: .unauthenticated
            case .sessionExpired: .failedPrecondition
            case .permissionDenied: .permissionDenied
            case .rateLimited: .resourceExhausted
            case .invalidRequest: .invalidArgument
            case .sessionMoved: .unavailable
            case .secretKeyRetired: .unauthenticated
            case .readerBusy: .aborted
            case .readerConnectedToAnotherSession: .failedPrecondition
            case .readerOffline: .unavailable
            case .readerNotFound: .notFound
            case .staleDiscovery: .failedPrecondition
            case .discoveryAlreadyInProgress: .failedPrecondition
            case .notConnectedToReader: .failedPrecondition
            case .alreadyConnectedToReader: .failedPrecondition
            case .locationRequired: .invalidArgument
            case .locationNotFound: .notFound
            case .discoveryCanceled: .cancelled
            case .commandCanceled: .cancelled
            case .readerError: .aborted
            case .readerTimeout: .deadlineExceeded
            case .readerNotReady: .failedPrecondition
            case .registrationCodeInvalid: .invalidArgument
            case .readerAlreadyRegistered: .alreadyExists
            case .serialNotProven: .unauthenticated
            case .readerCredentialInvalid: .unauthenticated
            case .readerLinkReplaced: .aborted
            case .ownershipChanged: .aborted
            case .storeUnavailable: .unavailable
            case .`internal`: .`internal`
            case .readerLinkMoved: .unavailable
            case .notAReplica: .permissionDenied
            case .tapToPayUnsupportedDevice: .failedPrecondition
            case .tapToPayReaderMerchantBlocked: .resourceExhausted
            case .tapToPayReaderTosAcceptanceCanceled: .failedPrecondition
            case .readerSoftwareUpdateFailed: .aborted
            case .readerSoftwareUpdateFailedBatteryLow: .failedPrecondition
            case .readerSoftwareUpdateFailedInterrupted: .unavailable
            case .softwareUpdateNotFound: .notFound
            case .bluetoothAlreadyPairedWithAnotherDevice: .failedPrecondition
            case .bluetoothPairingFailed: .failedPrecondition
            case .bluetoothConnectTimedOut: .unavailable
            case .consumerTooSlow: .resourceExhausted
            case .eventNotFound: .notFound
            case .apiKeyNotFound: .notFound
            case .authenticationRateLimited: .resourceExhausted
            case .webhookEndpointNotFound: .notFound
            case .cardDeclined: .failedPrecondition
            case .protocolError: .`internal`
            case .frameTooLarge: .resourceExhausted
            case .unknownFrameType: .`internal`
            case .malformedMessage: .`internal`
            case .messageTooLarge: .resourceExhausted
            case .streamIDInvalid: .`internal`
            case .streamStateInvalid: .`internal`
            case .tooManyStreams: .unavailable
            case .flowControlViolation: .`internal`
            case .headerTooLarge: .resourceExhausted
            case .methodNotFound: .unimplemented
            case .deadlineExceeded: .deadlineExceeded
            case .cancelledByPeer: .cancelled
            case .goingAway: .unavailable
            case .keepaliveTimeout: .unavailable
            case .tooManyPings: .resourceExhausted
            case .unsupportedProtocol: .unimplemented
            case .connectionLost: .unavailable
            default: .unknown
            }
        }
    }

    /// The outcome of a call, or the cause of a cancel or a GOAWAY.
    public struct Status: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.Status"

        /// The canonical code; OK for a successful call.
        public var code: ReaderGatewayV1.StatusCode = ReaderGatewayV1.StatusCode(rawValue: 0)

        /// The precise reason; UNSPECIFIED for OK.
        public var reason: ReaderGatewayV1.ErrorReason = ReaderGatewayV1.ErrorReason(rawValue: 0)

        /// What happened and what to do, for humans. Never contains secrets.
        public var message: String = ""

        /// When nonzero, a RESOURCE_EXHAUSTED refusal that ends by itself: the same call
        /// is refused until this many milliseconds have passed (a locked-out source
        /// address, a discovery rate limit). Zero: no wait is known.
        public var retryAfterMs: UInt64 = 0

        /// For CARD_DECLINED: why the card was declined, as Stripe's decline codes
        /// name it (`generic_decline`, `insufficient_funds`, `expired_card`, ...).
        /// Empty for every other status.
        public var declineCode: String = ""

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.code = try reader.read(ProtobufEnumField<ReaderGatewayV1.StatusCode>.self, tag)
                case 2: self.reason = try reader.read(ProtobufEnumField<ReaderGatewayV1.ErrorReason>.self, tag)
                case 3: self.message = try reader.read(ProtobufString.self, tag)
                case 4: self.retryAfterMs = try reader.read(ProtobufUInt64.self, tag)
                case 5: self.declineCode = try reader.read(ProtobufString.self, tag)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeSingular(ProtobufEnumField<ReaderGatewayV1.StatusCode>.self, self.code, field: 1)
            writer.writeSingular(ProtobufEnumField<ReaderGatewayV1.ErrorReason>.self, self.reason, field: 2)
            writer.writeSingular(ProtobufString.self, self.message, field: 3)
            writer.writeSingular(ProtobufUInt64.self, self.retryAfterMs, field: 4)
            writer.writeSingular(ProtobufString.self, self.declineCode, field: 5)
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.value("code", self.code, isDefault: self.code.rawValue == 0)
            d.value("reason", self.reason, isDefault: self.reason.rawValue == 0)
            d.string("message", self.message)
            d.value("retryAfterMs", self.retryAfterMs, isDefault: self.retryAfterMs == 0)
            d.string("declineCode", self.declineCode)
            d.unknown(self.unknownFields)
            return d.text
        }
    }
}
