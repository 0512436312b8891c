import Glibc
import GatewayWire
import Synchronization

/// Serves a ``SimulatedBluetoothAir`` to point-of-sale devices in other processes over a
/// Unix-domain socket (``BluetoothAirSocketRadio`` is the other end): `reader-sim
/// --bluetooth-air PATH` hosts the readers, `pos-lane --bluetooth-air PATH` scans, pairs and
/// connects them as it would with an in-process ``SimulatedRadio``.
///
/// Each accepted socket is one device (its `hello`). Bad input gets a `failure` reply and the
/// socket carries on (a broken framing closes that socket alone). A socket that ends — the
/// device's process died — ends its Bluetooth connections with `bluetoothSignalLost`, as a
/// phone that disappears does.
public final class SimulatedBluetoothAirServer: Sendable {
    /// What happened on the air, for the simulator to print.
    public enum Event: Sendable {
        case deviceArrived(device: String)
        case deviceLeft(device: String, error: String?)
        case connected(serial: String, device: String)
        case disconnected(serial: String, device: String, reason: ReaderGatewayV1.MobileDisconnectReason)
        case pairing(serial: String, device: String, passkey: String)
        case commandStarted(serial: String, command: ReaderGatewayV1.ReaderCommand)
        case updateProgress(serial: String, version: String, progress: Float)
        case commandFinished(serial: String, command: ReaderGatewayV1.ReaderCommand, result: ReaderGatewayV1.CommandResult)
        case badInput(device: String, message: String)
    }

    public let air: SimulatedBluetoothAir
    public let path: String
    private let listener: Int32
    private let onEvent: @Sendable (Event) -> Void
    private let nextHandle = Atomic<UInt32>(0)
    /// The devices' sockets, by descriptor, while they are open.
    private let sockets = Mutex<[Int32: BluetoothAirSocket]>([:])
    /// Called before each software update installs (reader-sim's `--fail-updates` arms the failure).
    private let beforeInstall: @Sendable (String) -> Void

    /// Listens at `path` (a stale socket file from a simulator that is gone is replaced).
    public init(
        air: SimulatedBluetoothAir, path: String, beforeInstall: @escaping @Sendable (String) -> Void = { _ in },
        onEvent: @escaping @Sendable (Event) -> Void
    ) throws(BluetoothError) {
        self.air = air
        self.path = path
        self.onEvent = onEvent
        self.beforeInstall = beforeInstall
        listener = try BluetoothAirSocket.listen(path: path)
        let server = self
        startThread { server.acceptLoop() }
    }

    /// Stops accepting, removes the socket file and closes every device's socket (their
    /// Bluetooth connections end as a lost signal, as when the simulator dies).
    public func close() {
        Glibc.shutdown(listener, Int32(SHUT_RDWR))
        unlink(path)
        for socket in sockets.withLock({ Array($0.values) }) { socket.shutDown() }
    }

    private func acceptLoop() {
        while true {
            let descriptor = accept(listener, nil, nil)
            if descriptor < 0 {
                if errno == EINTR || errno == ECONNABORTED { continue }
                if errno == EMFILE || errno == ENFILE {
                    // Out of descriptors: back off instead of spinning; the devices that hold them
                    // come and go.
                    usleep(50_000)
                    continue
                }
                Glibc.close(listener)
                return
            }
            _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
            let socket = BluetoothAirSocket(descriptor: descriptor)
            sockets.withLock { $0[descriptor] = socket }
            DeviceSocket(server: self, socket: socket).start()
        }
    }

    fileprivate func emit(_ event: Event) { onEvent(event) }
    fileprivate func forget(_ socket: BluetoothAirSocket) {
        sockets.withLock { if $0[socket.descriptor] === socket { $0[socket.descriptor] = nil } }
    }
    fileprivate func newHandle() -> UInt32 { nextHandle.add(1, ordering: .relaxed).newValue }
    fileprivate func armInstall(_ serial: String) { beforeInstall(serial) }
}

/// One device's socket on the server: its requests, its watches, its Bluetooth connections.
private final class DeviceSocket: Sendable {
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
            socket.send(.connected(call: call, handle: handle, deviceType: peripheral.deviceType, softwareVersion: peripheral.softwareVersion))
            Task {
                let reason = await peripheral.disconnected()
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
