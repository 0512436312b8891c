import GatewayWire

/// A software update for a reader (Stripe's `ReaderSoftwareUpdate`).
public struct ReaderSoftwareUpdate: Sendable, Hashable {
    /// How long installing takes (Stripe's `UpdateTimeEstimate`).
    public enum TimeEstimate: Sendable, Hashable {
        case lessThanOneMinute, oneToTwoMinutes, twoToFiveMinutes, fiveToFifteenMinutes
        /// Not given, or a value this version does not know.
        case unknown
    }

    /// The reader kind it is for.
    public var deviceType: DeviceType
    /// The version it installs (Stripe's `deviceSoftwareVersion`).
    public var version: String
    /// What it changes: `incremental`, `firmware`, `config`, `keys` (Stripe's `components`).
    public var components: [String]
    public var estimatedUpdateTime: TimeEstimate
    /// When it becomes required, in Unix milliseconds (0: never); Stripe's `requiredAt`.
    public var requiredAtUnixMs: Int64
    /// Whether its required time has passed: it installs at the next connect.
    public var isRequired: Bool

    init(_ wire: ReaderGatewayV1.ReaderSoftwareUpdate) {
        deviceType = DeviceType(wire.deviceType)
        version = wire.version
        components = wire.components
        estimatedUpdateTime = switch wire.durationEstimate {
        case .lessThanOneMinute: .lessThanOneMinute
        case .oneToTwoMinutes: .oneToTwoMinutes
        case .twoToFiveMinutes: .twoToFiveMinutes
        case .fiveToFifteenMinutes: .fiveToFifteenMinutes
        default: .unknown
        }
        requiredAtUnixMs = wire.requiredAtUnixMs
        isRequired = wire.required
    }
}
