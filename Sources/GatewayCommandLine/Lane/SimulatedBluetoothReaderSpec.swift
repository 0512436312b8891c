import GatewayWire

/// One simulated Bluetooth reader of pos-lane's `--bluetooth-readers`: `wisepad3:WPC3-0001`.
public struct SimulatedBluetoothReaderSpec: Sendable, Hashable {
    public var deviceType: ReaderGatewayV1.DeviceType
    public var serialNumber: String

    public init(deviceType: ReaderGatewayV1.DeviceType, serialNumber: String) {
        self.deviceType = deviceType
        self.serialNumber = serialNumber
    }

    /// `MODEL:SERIAL` with MODEL `wisepad3`, `m2` or `chipper2x`; nil otherwise.
    public init?(parsing text: String) {
        let parts = text.split(separator: ":", maxSplits: 1).map(String.init)
        guard parts.count == 2, !parts[1].isEmpty else { return nil }
        switch parts[0].lowercased() {
        case "wisepad3": deviceType = .bbposWisepad3
        case "m2": deviceType = .stripeM2
        case "chipper2x": deviceType = .bbposChipper2xBt
        default: return nil
        }
        serialNumber = parts[1].uppercased()
    }
}
