import GatewayWire

/// What a Bluetooth reader advertises over the air, as the point-of-sale device's radio
/// hears it.
public struct BluetoothAdvertisement: Sendable, Hashable {
    /// The serial number printed on the reader (`WPC32…`, `STRM2…`, `CHB20…`).
    public var serialNumber: String
    /// The reader model (`.wisePad3`, `.stripeM2`, `.chipper2X`).
    public var deviceType: DeviceType
    /// The received signal strength in dBm: the larger (closer to 0), the closer the reader.
    public var signalStrength: Int
    /// Battery level from 0.0 to 1.0, read from the reader once connected to it briefly
    /// (proximity discovery's second delivery); nil until read.
    public var batteryLevel: Float?
    /// The software version the reader runs.
    public var softwareVersion: String

    public init(
        serialNumber: String, deviceType: DeviceType, signalStrength: Int, batteryLevel: Float? = nil, softwareVersion: String = ""
    ) {
        self.serialNumber = serialNumber
        self.deviceType = deviceType
        self.signalStrength = signalStrength
        self.batteryLevel = batteryLevel
        self.softwareVersion = softwareVersion
    }
}

extension ReaderGatewayV1.DeviceType {
    /// Whether this is a Bluetooth reader's model (WisePad 3, Reader M2, Chipper 2X BT).
    package var isBluetoothReader: Bool {
        switch self {
        case .bbposWisepad3, .stripeM2, .bbposChipper2xBt: true
        default: false
        }
    }

    /// Whether pairing with a new (or forgotten) device takes numeric comparison: a 6-digit
    /// passkey shown on both sides (WisePad 3).
    package var pairsByNumericComparison: Bool { self == .bbposWisepad3 }
}
