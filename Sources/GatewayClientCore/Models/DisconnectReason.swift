import GatewayWire

/// Why a session lost its reader, or why a mobile reader's connection ended (a Bluetooth
/// reader's, the phone's own Tap to Pay reader's): Stripe Terminal's `DisconnectReason` names
/// where they mean the same, and the gateway's own reasons beside them (another lane took the
/// reader, an admin released it, ...). For a takeover, ``DisconnectInfo`` says who took it.
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
    /// A mobile reader rebooted for security (Stripe's `securityReboot`).
    case securityReboot
    /// A mobile reader's battery ran critically low (Stripe's `criticallyLowBattery`).
    case criticallyLowBattery
    /// A mobile reader was powered off (Stripe's `poweredOff`).
    case poweredOff
    /// The device's Bluetooth was turned off (Stripe's `bluetoothDisabled`).
    case bluetoothDisabled
    /// A mobile reader powered itself down after being idle (Stripe's `idlePowerDown`).
    case idlePowerDown
    /// The Bluetooth signal to a reader was lost (Stripe's `bluetoothSignalLost`).
    case bluetoothSignalLost
    /// The app went to the background: the phone's own Tap to Pay reader stops until it is back.
    case appInBackground
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

    /// A mobile reader's link ending, as the device reports it to the gateway.
    package init(mobile wire: ReaderGatewayV1.MobileDisconnectReason) {
        self = switch wire {
        case .disconnectRequested: .disconnectRequested
        case .rebootRequested: .rebootRequested
        case .securityReboot: .securityReboot
        case .criticallyLowBattery: .criticallyLowBattery
        case .poweredOff: .poweredOff
        case .bluetoothDisabled: .bluetoothDisabled
        case .idlePowerDown: .idlePowerDown
        case .bluetoothSignalLost: .bluetoothSignalLost
        case .appInBackground: .appInBackground
        default: .unknown
        }
    }

    /// How a mobile reader's link tells the gateway it ended (a session's own reasons, which
    /// no link ending has, as `unknown`).
    package var mobileWire: ReaderGatewayV1.MobileDisconnectReason {
        switch self {
        case .disconnectRequested: .disconnectRequested
        case .rebootRequested: .rebootRequested
        case .securityReboot: .securityReboot
        case .criticallyLowBattery: .criticallyLowBattery
        case .poweredOff: .poweredOff
        case .bluetoothDisabled: .bluetoothDisabled
        case .idlePowerDown: .idlePowerDown
        case .bluetoothSignalLost: .bluetoothSignalLost
        case .appInBackground: .appInBackground
        case .readerLost, .replaced, .adminReleased, .sessionExpired, .readerUnregistered, .storeRolledBack, .unknown: .unknown
        }
    }
}
