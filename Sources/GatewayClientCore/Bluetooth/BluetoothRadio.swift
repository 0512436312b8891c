import GatewayWire

/// A point-of-sale device's Bluetooth radio: the seam between the client library and BLE.
///
/// A phone implements it over its platform's Bluetooth stack; tests, `pos-lane` and demos use
/// the radios of the `GatewaySimulators` library (simulated readers in a simulated air, in
/// this process or in `reader-sim`). The client library only talks to readers through it.
public protocol BluetoothRadio: Sendable {
    /// The point-of-sale device this radio belongs to (its `pos_device_id`).
    var deviceID: String { get }
    /// The advertisements heard now, then the whole list again after every change, until the
    /// consumer stops iterating. A reader connected to a device stops advertising.
    func advertisements() -> AsyncStream<[BluetoothAdvertisement]>
    /// Reads a reader's battery level with a brief connection (proximity discovery's second
    /// delivery).
    func readBatteryLevel(serialNumber: String) async throws(BluetoothError) -> Float?
    /// Opens the Bluetooth connection to the reader, waiting up to `timeout` for it to be in
    /// reach, powered on and free.
    func connect(serialNumber: String, timeout: Duration) async throws(BluetoothError) -> any BluetoothPeripheral
}

/// One Bluetooth connection to a reader.
public protocol BluetoothPeripheral: Sendable {
    var serialNumber: String { get }
    /// The reader model (`.wisePad3`, `.stripeM2`, `.chipper2X`).
    var deviceType: DeviceType { get }
    /// The software version it runs now (it changes when an update installs).
    var softwareVersion: String { get }
    /// Battery level from 0.0 to 1.0.
    var batteryLevel: Float? { get }
    /// Whether the reader already bonded with this device (no numeric comparison needed).
    var isBonded: Bool { get }
    /// Starts numeric comparison: the reader shows the returned 6-digit passkey.
    func beginPairing() -> String
    /// Waits for the user's answer on the reader: the passkey it showed and whether they
    /// selected Confirm.
    func readerPairingAnswer() async -> (passkey: String, accepted: Bool)
    /// Both sides keep the bond (the device selected Pair).
    func bond()
    /// Runs one command on the reader and returns its result (a collect waits for the card;
    /// a software update reports its progress, 0 to 1, through `progress` as it installs).
    func run(_ command: ReaderGatewayV1.ReaderCommand, progress: @Sendable (Float) -> Void) async -> ReaderGatewayV1.CommandResult
    /// Returns once this connection ended, with the reason (every caller gets it).
    func disconnected() async -> DisconnectReason
    /// Ends the connection from the device's side (`disconnectRequested`).
    func disconnect()
    /// Reboots the reader (after it answered the reboot command): the connection ends
    /// (`rebootRequested`) and the reader's 24-hour timer restarts.
    func reboot()
}

/// A Bluetooth failure.
public struct BluetoothError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind.
    public enum Code: Sendable, Hashable {
        /// The reader did not come within reach (powered off, out of range) in time.
        case readerNotFound
        /// The reader is connected to another device.
        case connectedToAnotherDevice
        /// Bluetooth is off on this device.
        case bluetoothDisabled
        /// The connection ended.
        case disconnected
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code): \(message)" }
}
