import GatewayClient
import GatewayWire
import Synchronization

/// One Bluetooth connection through a ``BluetoothAirSocketRadio``.
final class BluetoothAirSocketPeripheral: BluetoothPeripheral {
    let radio: BluetoothAirSocketRadio
    let handle: UInt32
    let serialNumber: String
    let deviceType: DeviceType
    /// The last state read, answered when the air does not (it is gone).
    private let cache: Mutex<(version: String, battery: Float?, bonded: Bool)>

    init(radio: BluetoothAirSocketRadio, handle: UInt32, serialNumber: String, deviceType: ReaderGatewayV1.DeviceType, softwareVersion: String) {
        self.radio = radio
        self.handle = handle
        self.serialNumber = serialNumber
        self.deviceType = DeviceType(deviceType)
        cache = Mutex((softwareVersion, nil, false))
    }

    private func readState() -> (version: String, battery: Float?, bonded: Bool) {
        let call = radio.newCall()
        if case .state(_, let version, let battery, let bonded)? = radio.askBlocking(call, .readState(call: call, handle: handle)) {
            cache.withLock { $0 = (version, battery, bonded) }
        }
        return cache.withLock { $0 }
    }

    var softwareVersion: String { readState().version }
    var batteryLevel: Float? { readState().battery }
    var isBonded: Bool { readState().bonded }

    func beginPairing() -> String {
        let call = radio.newCall()
        guard case .passkey(_, let passkey)? = radio.askBlocking(call, .beginPairing(call: call, handle: handle)) else { return "" }
        return passkey
    }

    func readerPairingAnswer() async -> (passkey: String, accepted: Bool) {
        let call = radio.newCall()
        guard case .answer(_, let passkey, let accepted) = await radio.ask(call, .pairingAnswer(call: call, handle: handle)) else { return ("", false) }
        return (passkey, accepted)
    }

    func bond() {
        radio.socket.send(.bond(handle: handle))
    }

    func run(_ command: ReaderGatewayV1.ReaderCommand, progress: @Sendable (Float) -> Void) async -> ReaderGatewayV1.CommandResult {
        let call = radio.newCall()
        let (replies, sink) = AsyncStream<BluetoothAirMessage>.makeStream()
        radio.register(call) { message in
            sink.yield(message)
            if case .progress = message { return }
            sink.finish()
        }
        radio.send(.run(call: call, handle: handle, command: command.serializedBytes()), call)
        for await reply in replies {
            switch reply {
            case .progress(_, let fraction):
                progress(fraction)
            case .result(_, let bytes):
                do {
                    return try ReaderGatewayV1.CommandResult(serializedBytes: bytes)
                } catch {
                    return ReaderCommandResults.status(command.commandID, ReaderGatewayV1.Status(.readerError, "the air's result did not decode: \(error)"))
                }
            default:
                return ReaderCommandResults.status(command.commandID, ReaderGatewayV1.Status(.readerError, "the reader did not answer: \(BluetoothAirSocketRadio.error(reply).message)"))
            }
        }
        return ReaderCommandResults.status(command.commandID, ReaderGatewayV1.Status(.readerError, "the reader did not answer (the command was cancelled)"))
    }

    func disconnected() async -> DisconnectReason {
        DisconnectReason(mobile: await radio.waitEnded(handle))
    }

    func disconnect() {
        radio.socket.send(.disconnect(handle: handle))
    }

    func reboot() {
        radio.socket.send(.reboot(handle: handle))
    }
}
