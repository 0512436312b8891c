import GatewayWire

/// Why a session lost its reader: Stripe Terminal's `DisconnectReason` names where they mean
/// the same, and the gateway's own reasons beside them (another lane took the reader, an
/// admin released it, ...). For a takeover, ``DisconnectInfo`` says who took it.
public enum DisconnectReason: Sendable, Hashable {
    /// The app asked for it (Stripe's `disconnectRequested`): disconnectReader, closeSession.
    case disconnectRequested
    /// The reader rebooted (Stripe's `rebootRequested`): rebootReader or a software update.
    case rebootRequested
    /// The gateway stopped hearing from the reader (network lost, powered off).
    case readerLost
    /// Another lane connected to the reader (Stripe's error `readerConnectedToAnotherDevice`).
    case replaced
    /// A fleet admin released the reader.
    case adminReleased
    /// The session's lease ran out.
    case sessionExpired
    /// The reader was unregistered or moved to another location.
    case readerUnregistered
    /// The store lost the connect that granted the reader (a failover back in time): connect again.
    case storeRolledBack
    /// Not given, or a reason this version does not know (Stripe's `unknown`).
    case unknown

    init(_ wire: ReaderGatewayV1.DisconnectReason) {
        self = switch wire {
        case .requested: .disconnectRequested
        case .rebootRequested: .rebootRequested
        case .readerLost: .readerLost
        case .replaced: .replaced
        case .adminReleased: .adminReleased
        case .sessionExpired: .sessionExpired
        case .readerUnregistered: .readerUnregistered
        case .storeRolledBack: .storeRolledBack
        default: .unknown
        }
    }
}
