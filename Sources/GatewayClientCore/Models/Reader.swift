import GatewayWire

/// A card reader as the gateway knows it (Stripe Terminal's `Reader`), with the gateway's
/// extras: its activity and when it was last seen.
public struct Reader: Sendable, Hashable {
    /// Whether the gateway hears from the reader (Stripe's `NetworkStatus`).
    public enum NetworkStatus: Sendable, Hashable {
        case online, offline
        /// A status this version does not know (a newer gateway).
        case unknown
    }

    /// What the reader is doing (the gateway's own: Stripe has no equivalent).
    public enum Activity: Sendable, Hashable {
        case idle, collecting, confirming, updating, rebooting
        /// Not reported, or a value this version does not know.
        case unknown
    }

    /// The reader's id (`tmr_…`).
    public var id: String
    /// The serial number printed on the reader.
    public var serialNumber: String
    /// The label given at registration ("Counter 1").
    public var label: String
    public var deviceType: DeviceType
    /// The reader's software version.
    public var softwareVersion: String
    /// The location it is registered to (`tml_…`).
    public var locationID: String
    public var networkStatus: NetworkStatus
    public var activity: Activity
    /// The reader's address on its network, when it has one.
    public var ipAddress: String
    /// Battery level 0 … 1, for readers that run on a battery.
    public var batteryLevel: Float?
    /// When the gateway last heard from the reader, in Unix milliseconds (0: never).
    public var lastSeenUnixMs: Int64
    /// Whether the reader is simulated.
    public var simulated: Bool
    /// The software update available for it, if any (Stripe's `availableUpdate`).
    public var availableUpdate: ReaderSoftwareUpdate?

    /// Whether the gateway hears from the reader.
    public var isOnline: Bool { networkStatus == .online }

    init(_ wire: ReaderGatewayV1.Reader) {
        id = wire.id
        serialNumber = wire.serialNumber
        label = wire.label
        deviceType = DeviceType(wire.deviceType)
        softwareVersion = wire.softwareVersion
        locationID = wire.locationID
        networkStatus = switch wire.networkStatus {
        case .online: .online
        case .offline: .offline
        default: .unknown
        }
        activity = switch wire.activity {
        case .idle: .idle
        case .collecting: .collecting
        case .confirming: .confirming
        case .updating: .updating
        case .rebooting: .rebooting
        default: .unknown
        }
        ipAddress = wire.ipAddress
        batteryLevel = wire.batteryLevel
        lastSeenUnixMs = wire.lastSeenUnixMs
        simulated = wire.simulated
        availableUpdate = wire.availableUpdate.map(ReaderSoftwareUpdate.init)
    }
}

/// The kind of reader (Stripe's `DeviceType`), by the name the gateway and `gatewayctl` use
/// (`bbpos_wisepos_e`, `stripe_s700`, `bbpos_wisepad3`, `tap_to_pay`, ...). Open: a device
/// type a newer gateway reports keeps its name.
public struct DeviceType: Sendable, Hashable, CustomStringConvertible {
    /// The name, lower case (`bbpos_wisepos_e`); `unknown` when the gateway did not say.
    public let name: String

    public static let wisePosE = DeviceType(name: "bbpos_wisepos_e")
    public static let stripeS700 = DeviceType(name: "stripe_s700")
    public static let stripeS710 = DeviceType(name: "stripe_s710")
    public static let simulatedWisePosE = DeviceType(name: "simulated_wisepos_e")
    public static let wisePad3 = DeviceType(name: "bbpos_wisepad3")
    public static let stripeM2 = DeviceType(name: "stripe_m2")
    public static let chipper2X = DeviceType(name: "bbpos_chipper2x_bt")
    public static let tapToPay = DeviceType(name: "tap_to_pay")
    public static let unknown = DeviceType(name: "unknown")

    public init(name: String) { self.name = name }

    package init(_ wire: ReaderGatewayV1.DeviceType) {
        guard wire.rawValue != 0, let protoName = wire.protoName else {
            self = wire.rawValue == 0 ? .unknown : DeviceType(name: "device_type_\(wire.rawValue)")
            return
        }
        name = String(protoName.dropFirst("DEVICE_TYPE_".count)).lowercased()
    }

    /// The wire's device type of this name (a name this version does not know keeps its
    /// number, `device_type_12`; `unknown` is unspecified).
    package var wire: ReaderGatewayV1.DeviceType {
        if let known = ReaderGatewayV1.DeviceType.knownValues.first(where: { DeviceType($0) == self }) { return known }
        guard name.hasPrefix("device_type_"), let number = Int32(name.dropFirst("device_type_".count)) else { return .unspecified }
        return ReaderGatewayV1.DeviceType(rawValue: number)
    }

    public var description: String { name }
}
