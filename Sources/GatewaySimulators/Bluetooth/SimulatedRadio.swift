import GatewayClient
import GatewayWire

/// A point-of-sale device's radio in a ``SimulatedBluetoothAir``: the real seam the client
/// library uses, with simulated readers behind it.
public struct SimulatedRadio: BluetoothRadio {
    public let air: SimulatedBluetoothAir
    public let deviceID: String

    public init(air: SimulatedBluetoothAir, deviceID: String) {
        self.air = air
        self.deviceID = deviceID
    }

    public func advertisements() -> AsyncStream<[BluetoothAdvertisement]> {
        air.advertisements(device: deviceID)
    }

    public func readBatteryLevel(serialNumber: String) async throws(BluetoothError) -> Float? {
        try air.batteryLevel(serialNumber, device: deviceID)
    }

    public func connect(serialNumber: String, timeout: Duration) async throws(BluetoothError) -> any BluetoothPeripheral {
        try await air.connect(serialNumber, device: deviceID, timeout: timeout)
    }
}

/// One simulated Bluetooth connection between a device and a reader of the air.
struct SimulatedPeripheral: BluetoothPeripheral {
    let air: SimulatedBluetoothAir
    let serialNumber: String
    let deviceType: DeviceType
    /// The version when the connection opened (the reader's, until an install changes it).
    let connectedVersion: String
    let device: String
    let connection: UInt64

    var batteryLevel: Float? { air.state.withLock { $0.readers[serialNumber]?.battery } }

    var softwareVersion: String { air.softwareVersion(serialNumber) ?? connectedVersion }

    var isBonded: Bool { air.state.withLock { $0.readers[serialNumber]?.bonded.contains(device) ?? false } }

    func beginPairing() -> String {
        let (passkey, stale) = air.state.withLock { state in
            let passkey = String(UInt32.random(in: 0..<1_000_000, using: &state.passkeys)).leftPadded(to: 6)
            state.readers[serialNumber]?.passkey = passkey
            state.readers[serialNumber]?.pairingAnswer = nil
            // A wait left from an earlier pairing ends unanswered.
            defer { state.readers[serialNumber]?.pairingWaiter = nil }
            return (passkey, state.readers[serialNumber]?.pairingWaiter)
        }
        stale?.resume(returning: ("", false))
        return passkey
    }

    func readerPairingAnswer() async -> (passkey: String, accepted: Bool) {
        await withCheckedContinuation { waiter in
            let ready = air.state.withLock { state -> (passkey: String, accepted: Bool)? in
                // This connection ended: nobody answers on the reader any more.
                guard state.readers[serialNumber]?.connection?.id == connection else { return ("", false) }
                if let answer = state.readers[serialNumber]?.pairingAnswer {
                    state.readers[serialNumber]?.pairingAnswer = nil
                    return answer
                }
                state.readers[serialNumber]?.pairingWaiter = waiter
                return nil
            }
            if let ready { waiter.resume(returning: ready) }
        }
    }

    func bond() {
        air.change { state, _ in
            state.readers[serialNumber]?.bonded.insert(device)
            state.readers[serialNumber]?.passkey = nil
        }
    }

    func run(_ command: ReaderGatewayV1.ReaderCommand, progress: @Sendable (Float) -> Void) async -> ReaderGatewayV1.CommandResult {
        await air.run(command, on: serialNumber, connection: connection, progress: progress)
    }

    func disconnected() async -> DisconnectReason {
        DisconnectReason(mobile: await air.waitEnded(connection))
    }

    func disconnect() {
        air.endConnection(serialNumber, connection: connection, reason: .disconnectRequested)
    }

    /// The reader reboots (after answering the reboot command): the connection ends
    /// (`rebootRequested`), the reader is back at once with its 24-hour timer restarted.
    func reboot() {
        air.change { state, wakeups in
            guard state.readers[serialNumber]?.connection?.id == connection else { return }
            SimulatedBluetoothAir.end(serialNumber, .rebootRequested, &state, &wakeups)
            state.readers[serialNumber]!.bootedAt = state.now
        }
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }
}
