import GatewayChannel
import GatewayWire

/// A failure as a Stripe Terminal app knows it: a ``Code`` carrying Terminal iOS's
/// `ErrorCode` name where the gateway's reason means the same (`readerConnectedToAnotherDevice`,
/// one `canceled` for every cancellation), the gateway's own codes beside them (`staleDiscovery`,
/// `readerOffline`, ...), what happened and what to do, and for a takeover who took the reader.
public struct TerminalError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What failed, by name. Open: compare with the static members.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        /// The name (Terminal's where it has one).
        public let name: String
        private init(_ name: String) { self.name = name }
        public var description: String { name }

        // Terminal iOS's names.
        /// The operation was canceled: by the app (cancel on its `Cancelable`), a newer
        /// discovery, or the calling task.
        public static let canceled = Code("canceled")
        /// Another lane connected to the reader; ``TerminalError/takenBy`` says which.
        public static let readerConnectedToAnotherDevice = Code("readerConnectedToAnotherDevice")
        /// The reader is mid-transaction for another lane (a connect with `failIfInUse`).
        public static let readerBusy = Code("readerBusy")
        public static let notConnectedToReader = Code("notConnectedToReader")
        public static let alreadyConnectedToReader = Code("alreadyConnectedToReader")
        /// The connection token was refused (invalid or expired): the provider must fetch a new one.
        public static let connectionTokenProviderCompletedWithError = Code("connectionTokenProviderCompletedWithError")
        /// The session is gone (its lease ran out).
        public static let sessionExpired = Code("sessionExpired")
        /// The reader reported a failure (the card was removed, unreadable, ...); a decline is
        /// ``declinedByReader``.
        public static let readerError = Code("readerError")
        /// The card was declined (`CARD_DECLINED`): ``TerminalError/declineCode`` says why
        /// (`generic_decline`, `insufficient_funds`, ...). Ask for another card and collect again.
        public static let declinedByReader = Code("declinedByReader")
        /// The payment was declined when it was confirmed (`CARD_DECLINED` answering
        /// ``TerminalClient/confirmPaymentIntent(_:)``): ``TerminalError/declineCode`` says why.
        /// Collect a payment method again (another card) and confirm again.
        public static let declinedByStripeAPI = Code("declinedByStripeAPI")
        /// The reader did not answer in time.
        public static let readerTimeout = Code("readerTimeout")
        public static let readerSoftwareUpdateFailed = Code("readerSoftwareUpdateFailed")
        public static let readerSoftwareUpdateFailedBatteryLow = Code("readerSoftwareUpdateFailedBatteryLow")
        public static let readerSoftwareUpdateFailedInterrupted = Code("readerSoftwareUpdateFailedInterrupted")
        public static let bluetoothAlreadyPairedWithAnotherDevice = Code("bluetoothAlreadyPairedWithAnotherDevice")
        public static let bluetoothConnectTimedOut = Code("bluetoothConnectTimedOut")
        public static let bluetoothPairingFailed = Code("bluetoothPairingFailed")
        public static let tapToPayReaderMerchantBlocked = Code("tapToPayReaderMerchantBlocked")
        public static let tapToPayReaderTOSAcceptanceCanceled = Code("tapToPayReaderTOSAcceptanceCanceled")
        public static let tapToPayUnsupportedDevice = Code("tapToPayUnsupportedDevice")
        /// A parameter was missing or malformed.
        public static let invalidRequiredParameter = Code("invalidRequiredParameter")
        /// The call did not answer within its deadline.
        public static let requestTimedOut = Code("requestTimedOut")
        /// Too many requests (discoveries, or failed authentications from this address): retry
        /// after ``TerminalError/underlying``'s `retryAfterMs`.
        public static let rateLimited = Code("rateLimited")
        /// Anything else: the message says what happened.
        public static let unexpectedSdkError = Code("unexpectedSdkError")

        // The gateway's own.
        /// The reader came from a discovery a newer one superseded: discover again.
        public static let staleDiscovery = Code("staleDiscovery")
        /// The reader is registered but the gateway does not hear from it.
        public static let readerOffline = Code("readerOffline")
        public static let readerNotFound = Code("readerNotFound")
        /// A discovery is already running on this client: wait for it or cancel it first.
        public static let discoveryAlreadyInProgress = Code("discoveryAlreadyInProgress")
        public static let locationNotFound = Code("locationNotFound")
        public static let locationRequired = Code("locationRequired")
        /// The connection to the gateway is down or going away; the client retries what it safely can.
        public static let gatewayUnavailable = Code("gatewayUnavailable")
        public static let permissionDenied = Code("permissionDenied")

        /// The code for the gateway's reason and status.
        init(_ error: RPCError) {
            switch error.reason {
            case .commandCanceled, .discoveryCanceled, .cancelledByPeer: self = .canceled
            case .readerConnectedToAnotherSession: self = .readerConnectedToAnotherDevice
            case .readerBusy: self = .readerBusy
            case .notConnectedToReader: self = .notConnectedToReader
            case .alreadyConnectedToReader: self = .alreadyConnectedToReader
            case .connectionTokenInvalid, .connectionTokenExpired: self = .connectionTokenProviderCompletedWithError
            case .sessionExpired: self = .sessionExpired
            case .readerError: self = .readerError
            case .cardDeclined: self = .declinedByReader
            case .readerTimeout: self = .readerTimeout
            case .readerSoftwareUpdateFailed: self = .readerSoftwareUpdateFailed
            case .readerSoftwareUpdateFailedBatteryLow: self = .readerSoftwareUpdateFailedBatteryLow
            case .readerSoftwareUpdateFailedInterrupted: self = .readerSoftwareUpdateFailedInterrupted
            case .bluetoothAlreadyPairedWithAnotherDevice: self = .bluetoothAlreadyPairedWithAnotherDevice
            case .bluetoothConnectTimedOut: self = .bluetoothConnectTimedOut
            case .bluetoothPairingFailed: self = .bluetoothPairingFailed
            case .tapToPayReaderMerchantBlocked: self = .tapToPayReaderMerchantBlocked
            case .tapToPayReaderTosAcceptanceCanceled: self = .tapToPayReaderTOSAcceptanceCanceled
            case .tapToPayUnsupportedDevice: self = .tapToPayUnsupportedDevice
            case .invalidRequest: self = .invalidRequiredParameter
            case .deadlineExceeded: self = .requestTimedOut
            case .rateLimited, .authenticationRateLimited: self = .rateLimited
            case .staleDiscovery: self = .staleDiscovery
            case .readerOffline: self = .readerOffline
            case .readerNotFound: self = .readerNotFound
            case .discoveryAlreadyInProgress: self = .discoveryAlreadyInProgress
            case .locationNotFound: self = .locationNotFound
            case .locationRequired: self = .locationRequired
            case .permissionDenied: self = .permissionDenied
            default:
                switch error.code {
                case .cancelled: self = .canceled
                case .deadlineExceeded: self = .requestTimedOut
                case .unavailable: self = .gatewayUnavailable
                default: self = .unexpectedSdkError
                }
            }
        }
    }

    public var code: Code
    /// What happened and what to do, for humans.
    public var message: String
    /// For ``Code/readerConnectedToAnotherDevice``: the takeover (the lane and point-of-sale
    /// device that took the reader), once the client has heard of it.
    public var takenBy: DisconnectInfo?
    /// For ``Code/declinedByReader`` and ``Code/declinedByStripeAPI``: why the card was declined, as Stripe names it
    /// (`generic_decline`, `insufficient_funds`, `expired_card`, ...; Terminal iOS's
    /// `SCPErrorKeyStripeAPIDeclineCode`); nil for every other error.
    public var declineCode: String?
    /// The gateway's own error: its precise reason, status code and cause.
    public var underlying: RPCError

    /// The Terminal-named error for the gateway's `error`; `takenBy` for a takeover.
    public init(_ error: RPCError, takenBy: DisconnectInfo? = nil) {
        code = Code(error)
        message = error.message
        self.takenBy = code == .readerConnectedToAnotherDevice ? takenBy : nil
        declineCode = error.declineCode
        underlying = error
    }

    /// Whether the operation may simply be tried again (the gateway did not act on it).
    public var isRetryable: Bool { underlying.isRetryable }

    public var description: String {
        var text = "\(code): \(message)"
        if let takenBy, !takenBy.takenByLaneLabel.isEmpty { text += " (taken by \(takenBy.takenByLaneLabel))" }
        if let declineCode { text += " (decline code: \(declineCode))" }
        return text + " [\(underlying.reason)]"
    }
}
