import GatewayClient
import GatewayWire
import Synchronization

/// One device's socket on the server: its requests, its watches, its Bluetooth connections.
final class BluetoothAirDeviceSocket: Sendable {
    struct Open {
        var peripheral: any BluetoothPeripheral
        var serial: String
    }

    struct State {
        var device: String?
        var closed = false
        var watches: [UInt32: Task<Void, Never>] = [:]
        var connects: [UInt32: Task<Void, Never>] = [:]
        var peripherals: [UInt32: Open] = [:]
    }

    let server: SimulatedBluetoothAirServer
    let socket: BluetoothAirSocket
    let state = Mutex(State())

    init(server: SimulatedBluetoothAirServer, socket: BluetoothAirSocket) {
        self.server = server
        self.socket = socket
    }

    func start() {
        socket.startReading { message in
            self.handle(message)
        } onMalformed: { error in
            self.fail(0, error.description)
        } onEnd: { error in
            self.ended(error)
        }
    }

    private var radio: SimulatedRadio? { state.withLock { $0.device }.map { SimulatedRadio(air: server.air, deviceID: $0) } }

    private func fail(_ call: UInt32, _ message: String) {
        let device = state.withLock { $0.device } ?? "(no hello yet)"
        server.emit(.badInput(device: device, message: message))
        socket.send(.failure(call: call, code: .badRequest, message: message))
    }

    private func peripheral(_ handle: UInt32, _ call: UInt32) -> Open? {
        guard let open = state.withLock({ $0.peripherals[handle] }) else {
            fail(call, "no open Bluetooth connection \(handle) on this socket; connect first (it may have ended: see its `ended` message)")
            return nil
        }
        return open
    }

    private func handle(_ message: BluetoothAirMessage) {
        if case .hello(let device) = message {
            guard !device.isEmpty else { return fail(0, "hello names no device; send the point-of-sale device's id") }
            let first = state.withLock { state -> Bool in
                guard state.device == nil else { return false }
                state.device = device
                return true
            }
            guard first else { return fail(0, "hello arrived twice; a socket is one device for its whole life") }
            server.emit(.deviceArrived(device: device))
            socket.send(.welcome)
            return
        }
        guard let radio else { return fail(0, "the first message must be hello with the device's id") }
        switch message {
        case .watch(let call):
            let task = Task {
                for await list in radio.advertisements() {
                    guard socket.send(.advertisements(call: call, list)) else { break }
                }
            }
            let replaced = state.withLock { state -> Task<Void, Never>? in
                defer { state.watches[call] = task }
                return state.watches[call]
            }
            replaced?.cancel()
        case .unwatch(let call):
            state.withLock { $0.watches.removeValue(forKey: call) }?.cancel()
        case .readBattery(let call, let serial):
            Task {
                do throws(BluetoothError) {
                    socket.send(.batteryLevel(call: call, level: try await radio.readBatteryLevel(serialNumber: serial)))
                } catch {
                    socket.send(.failure(call: call, code: BluetoothAirFailure(error.code), message: error.message))
                }
            }
        case .connect(let call, let serial, let timeout):
            connect(call, serial, .milliseconds(Int64(timeout)), radio)
        case .cancel(let call):
            state.withLock { $0.connects[call] }?.cancel()
        case .readState(let call, let handle):
            guard let open = peripheral(handle, call) else { return }
            socket.send(.state(call: call, softwareVersion: open.peripheral.softwareVersion, batteryLevel: open.peripheral.batteryLevel, bonded: open.peripheral.isBonded))
        case .beginPairing(let call, let handle):
            guard let open = peripheral(handle, call) else { return }
            let passkey = open.peripheral.beginPairing()
            server.emit(.pairing(serial: open.serial, device: radio.deviceID, passkey: passkey))
            socket.send(.passkey(call: call, passkey))
        case .pairingAnswer(let call, let handle):
            guard let open = peripheral(handle, call) else { return }
            Task {
                let answer = await open.peripheral.readerPairingAnswer()
                socket.send(.answer(call: call, passkey: answer.passkey, accepted: answer.accepted))
            }
        case .bond(let handle):
            peripheral(handle, 0)?.peripheral.bond()
        case .run(let call, let handle, let bytes):
            guard let open = peripheral(handle, call) else { return }
            let command: ReaderGatewayV1.ReaderCommand
            do {
                command = try ReaderGatewayV1.ReaderCommand(serializedBytes: bytes)
            } catch {
                return fail(call, "run's command is not a ReaderCommand: \(error)")
            }
            run(call, command, open)
        case .disconnect(let handle):
            peripheral(handle, 0)?.peripheral.disconnect()
        case .reboot(let handle):
            peripheral(handle, 0)?.peripheral.reboot()
        case .hello, .welcome, .advertisements, .batteryLevel, .connected, .state, .passkey, .answer, .progress, .result, .ended, .failure:
            fail(0, "the air received a message only the air sends; a device sends hello, watch, unwatch, read_battery, connect, cancel, read_state, begin_pairing, pairing_answer, bond, run, disconnect or reboot")
        }
    }

    private func connect(_ call: UInt32, _ serial: String, _ timeout: Duration, _ radio: SimulatedRadio) {
        let task = Task {
            defer { _ = state.withLock { $0.connects.removeValue(forKey: call) } }
            let peripheral: any BluetoothPeripheral
            do throws(BluetoothError) {
                peripheral = try await radio.connect(serialNumber: serial, timeout: timeout)
            } catch {
                socket.send(.failure(call: call, code: BluetoothAirFailure(error.code), message: error.message))
                return
            }
            let handle = server.newHandle()
            let kept = state.withLock { state -> Bool in
                guard !state.closed else { return false }
                state.peripherals[handle] = Open(peripheral: peripheral, serial: serial)
                return true
            }
            guard kept else {
                // The device left while its connect waited.
                end(peripheral)
                return
            }
            server.emit(.connected(serial: serial, device: radio.deviceID))
            socket.send(.connected(call: call, handle: handle, deviceType: peripheral.deviceType.wire, softwareVersion: peripheral.softwareVersion))
            Task {
                let reason = await peripheral.disconnected().mobileWire
                state.withLock { _ = $0.peripherals.removeValue(forKey: handle) }
                server.emit(.disconnected(serial: serial, device: radio.deviceID, reason: reason))
                socket.send(.ended(handle: handle, reason: reason))
            }
        }
        state.withLock { $0.connects[call] = task }
    }

    private func run(_ call: UInt32, _ command: ReaderGatewayV1.ReaderCommand, _ open: Open) {
        var version = ""
        if case .installUpdate(let update)? = command.command {
            version = update.version
            server.armInstall(open.serial)
        }
        server.emit(.commandStarted(serial: open.serial, command: command))
        let server = self.server
        let socket = self.socket
        Task { [version] in
            let result = await open.peripheral.run(command) { fraction in
                server.emit(.updateProgress(serial: open.serial, version: version, progress: fraction))
                socket.send(.progress(call: call, fraction))
            }
            server.emit(.commandFinished(serial: open.serial, command: command, result: result))
            socket.send(.result(call: call, result.serializedBytes()))
        }
    }

    /// The device's socket ended: its watches and waiting connects stop, its Bluetooth
    /// connections end as a lost signal.
    private func ended(_ error: BluetoothAirProtocolError?) {
        let (device, watches, connects, open) = state.withLock { state in
            state.closed = true
            defer {
                state.watches = [:]
                state.connects = [:]
                state.peripherals = [:]
            }
            return (state.device, Array(state.watches.values), Array(state.connects.values), Array(state.peripherals.values))
        }
        server.forget(socket)
        for task in watches + connects { task.cancel() }
        for connection in open { end(connection.peripheral) }
        if let device { server.emit(.deviceLeft(device: device, error: error?.description)) }
    }

    private func end(_ peripheral: any BluetoothPeripheral) {
        if let simulated = peripheral as? SimulatedPeripheral {
            simulated.air.endConnection(simulated.serialNumber, connection: simulated.connection, reason: .bluetoothSignalLost)
        } else {
            peripheral.disconnect()
        }
    }
}
