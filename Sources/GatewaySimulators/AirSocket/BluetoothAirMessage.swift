import GatewayClient
import GatewayWire

/// One message of the shared Bluetooth air's socket protocol: what a point-of-sale device's
/// ``BluetoothAirSocketRadio`` and the simulator hosting the readers
/// (``SimulatedBluetoothAirServer``) say over a Unix-domain socket. docs/mobile-readers.md
/// describes it; ``BluetoothAirCodec`` encodes it.
///
/// `call` numbers a request (the device picks it; replies carry it back); `handle` names one
/// Bluetooth connection to a reader (the air picks it in `connected`).
enum BluetoothAirMessage: Sendable, Equatable {
    // The device to the air.
    /// The first message: which point-of-sale device this socket is.
    case hello(device: String)
    /// The advertisements heard now and after every change (`advertisements` replies) until
    /// `unwatch`.
    case watch(call: UInt32)
    case unwatch(call: UInt32)
    case readBattery(call: UInt32, serial: String)
    case connect(call: UInt32, serial: String, timeoutMilliseconds: UInt32)
    /// Stops a waiting `connect` (it fails with `readerNotFound`).
    case cancel(call: UInt32)
    case readState(call: UInt32, handle: UInt32)
    case beginPairing(call: UInt32, handle: UInt32)
    case pairingAnswer(call: UInt32, handle: UInt32)
    case bond(handle: UInt32)
    /// A serialized `ReaderCommand`; `progress` replies, then one `result`.
    case run(call: UInt32, handle: UInt32, command: [UInt8])
    case disconnect(handle: UInt32)
    case reboot(handle: UInt32)

    // The air to the device.
    case welcome
    case advertisements(call: UInt32, [BluetoothAdvertisement])
    case batteryLevel(call: UInt32, level: Float?)
    case connected(call: UInt32, handle: UInt32, deviceType: ReaderGatewayV1.DeviceType, softwareVersion: String)
    case state(call: UInt32, softwareVersion: String, batteryLevel: Float?, bonded: Bool)
    case passkey(call: UInt32, String)
    case answer(call: UInt32, passkey: String, accepted: Bool)
    case progress(call: UInt32, Float)
    /// A serialized `CommandResult`.
    case result(call: UInt32, [UInt8])
    /// The Bluetooth connection `handle` ended (sent unasked, once).
    case ended(handle: UInt32, reason: ReaderGatewayV1.MobileDisconnectReason)
    /// A request failed (`call` 0: the socket's input itself was wrong).
    case failure(call: UInt32, code: BluetoothAirFailure, message: String)
}

/// Why a request failed, on the socket.
enum BluetoothAirFailure: UInt8, Sendable {
    case readerNotFound = 1
    case connectedToAnotherDevice = 2
    case bluetoothDisabled = 3
    case disconnected = 4
    /// The message was malformed or out of place.
    case badRequest = 5

    init(_ code: BluetoothError.Code) {
        switch code {
        case .readerNotFound: self = .readerNotFound
        case .connectedToAnotherDevice: self = .connectedToAnotherDevice
        case .bluetoothDisabled: self = .bluetoothDisabled
        case .disconnected: self = .disconnected
        }
    }

    var bluetoothCode: BluetoothError.Code {
        switch self {
        case .readerNotFound: .readerNotFound
        case .connectedToAnotherDevice: .connectedToAnotherDevice
        case .bluetoothDisabled: .bluetoothDisabled
        case .disconnected, .badRequest: .disconnected
        }
    }
}

/// Input on the air's socket that is not a valid message; the message says what was wrong.
struct BluetoothAirProtocolError: Error, Sendable, Hashable, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
