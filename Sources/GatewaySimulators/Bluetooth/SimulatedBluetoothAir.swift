import GatewayClient
import GatewayRPC
import GatewayWire
import Synchronization

/// Simulated Bluetooth readers and the air between them and point-of-sale devices: what a
/// ``SimulatedRadio`` hears and connects to. Tests, `pos-lane` and demos drive the readers
/// (power, range, battery, the customer's card, the pairing answer on the reader) and the
/// simulated clock that reboots a reader after 24 hours of uptime.
///
/// A reader connected to a device stops advertising (so other devices do not discover it)
/// and refuses their connections. Time only moves with ``advance(by:)``.
public final class SimulatedBluetoothAir: Sendable {
    /// How the readers behave.
    public struct Options: Sendable, Hashable {
        /// Uptime after which a reader reboots itself (`securityReboot`).
        public var securityRebootAfter: Duration
        /// Battery drained per hour of simulated time while powered on.
        public var batteryDrainPerHour: Float
        /// At or below this level a reader powers down (`criticallyLowBattery`).
        public var criticalBatteryLevel: Float
        /// How long a software update takes to install (progress in quarters over it).
        public var updateDuration: Duration

        public init(
            securityRebootAfter: Duration = .seconds(24 * 3600), batteryDrainPerHour: Float = 0.01, criticalBatteryLevel: Float = 0.05,
            updateDuration: Duration = .milliseconds(400)
        ) {
            self.securityRebootAfter = securityRebootAfter
            self.batteryDrainPerHour = batteryDrainPerHour
            self.criticalBatteryLevel = criticalBatteryLevel
            self.updateDuration = updateDuration
        }
    }

    /// A card the customer presents.
    public typealias Card = PresentedCard

    struct Reader {
        var advertisement: BluetoothAdvertisement
        var battery: Float
        var poweredOn = true
        var inRange = true
        var bootedAt: Duration
        var bonded: Set<String> = []
        /// The device connected to it, and the connection's id.
        var connection: (device: String, id: UInt64)?
        var passkey: String?
        var pairingAnswer: (passkey: String, accepted: Bool)?
        var pairingWaiter: CheckedContinuation<(passkey: String, accepted: Bool), Never>?
        var collect: (waiter: CheckedContinuation<ReaderGatewayV1.CommandResult, Never>, id: UInt64, amount: Int64)?
        var tapped: Card?
        var lastAmount: Int64 = 0
        var autoCard: Card?
        /// The next software update fails halfway.
        var failNextUpdate = false
        /// The software update installing now: its command, version, and whether a
        /// CancelUpdate stopped it.
        var installing: (commandID: UInt64, version: String, canceled: Bool)?
        var advertising: Bool { poweredOn && inRange && connection == nil }
    }

    struct State {
        var now: Duration = .zero
        var readers: [String: Reader] = [:]
        var listeners: [UInt64: (device: String, sink: AsyncStream<[BluetoothAdvertisement]>.Continuation)] = [:]
        var disabledDevices: Set<String> = []
        /// Connects waiting for their reader, each until its deadline in simulated time (or its
        /// timeout in real time, whichever comes first).
        var connectWaiters: [UInt64: (serial: String, device: String, waiter: CheckedContinuation<UInt64?, Never>, deadline: Duration)] = [:]
        var ended: [UInt64: ReaderGatewayV1.MobileDisconnectReason] = [:]
        var endWaiters: [UInt64: [CheckedContinuation<ReaderGatewayV1.MobileDisconnectReason, Never>]] = [:]
        var nextID: UInt64 = 0
        var passkeys = SystemRandomNumberGenerator()
    }

    /// What to do once the lock is released.
    struct Wakeups {
        var lists: [(AsyncStream<[BluetoothAdvertisement]>.Continuation, [BluetoothAdvertisement])] = []
        var connects: [(CheckedContinuation<UInt64?, Never>, UInt64?)] = []
        var ends: [(CheckedContinuation<ReaderGatewayV1.MobileDisconnectReason, Never>, ReaderGatewayV1.MobileDisconnectReason)] = []
        var collects: [(CheckedContinuation<ReaderGatewayV1.CommandResult, Never>, ReaderGatewayV1.CommandResult)] = []
        var pairings: [(CheckedContinuation<(passkey: String, accepted: Bool), Never>, (passkey: String, accepted: Bool))] = []

        func run() {
            for (sink, list) in lists { sink.yield(list) }
            for (waiter, id) in connects { waiter.resume(returning: id) }
            for (waiter, reason) in ends { waiter.resume(returning: reason) }
            for (waiter, result) in collects { waiter.resume(returning: result) }
            for (waiter, answer) in pairings { waiter.resume(returning: answer) }
        }
    }

    public let options: Options
    let state = Mutex(State())

    public init(options: Options = Options()) {
        self.options = options
    }

    // MARK: the readers, as a test or the simulator drives them

    /// A reader, powered on and in range, just booted.
    public func addReader(
        serialNumber: String, deviceType: ReaderGatewayV1.DeviceType, signalStrength: Int = -60, batteryLevel: Float = 0.9,
        softwareVersion: String = "2.4.0", tapAutomatically: Card? = nil
    ) {
        change { state, _ in
            let advertisement = BluetoothAdvertisement(
                serialNumber: serialNumber, deviceType: DeviceType(deviceType), signalStrength: signalStrength, softwareVersion: softwareVersion
            )
            state.readers[serialNumber] = Reader(advertisement: advertisement, battery: batteryLevel, bootedAt: state.now, autoCard: tapAutomatically)
        }
    }

    /// Powers the reader off (`poweredOff`), or on (it boots: its 24-hour timer restarts).
    public func setPower(_ serialNumber: String, on: Bool) {
        change { state, wakeups in
            guard state.readers[serialNumber] != nil else { return }
            if on {
                if !state.readers[serialNumber]!.poweredOn { state.readers[serialNumber]!.bootedAt = state.now }
                state.readers[serialNumber]!.poweredOn = true
            } else {
                Self.end(serialNumber, .poweredOff, &state, &wakeups)
                state.readers[serialNumber]!.poweredOn = false
            }
        }
    }

    /// Moves the reader out of the device's range (`bluetoothSignalLost`), or back.
    public func setInRange(_ serialNumber: String, _ inRange: Bool) {
        change { state, wakeups in
            guard state.readers[serialNumber] != nil else { return }
            if !inRange { Self.end(serialNumber, .bluetoothSignalLost, &state, &wakeups) }
            state.readers[serialNumber]!.inRange = inRange
        }
    }

    /// Changes how strong the reader's signal is (how close it is).
    public func setSignalStrength(_ serialNumber: String, _ dBm: Int) {
        change { state, _ in state.readers[serialNumber]?.advertisement.signalStrength = dBm }
    }

    /// Sets the battery level; at or below the critical level the reader powers down
    /// (`criticallyLowBattery`).
    public func setBattery(_ serialNumber: String, _ level: Float) {
        change { state, wakeups in
            guard state.readers[serialNumber] != nil else { return }
            state.readers[serialNumber]!.battery = level
            Self.checkBattery(serialNumber, options.criticalBatteryLevel, &state, &wakeups)
        }
    }

    /// The reader powers down after being idle (`idlePowerDown`).
    public func idlePowerDown(_ serialNumber: String) {
        change { state, wakeups in
            guard state.readers[serialNumber] != nil else { return }
            Self.end(serialNumber, .idlePowerDown, &state, &wakeups)
            state.readers[serialNumber]!.poweredOn = false
        }
    }

    /// Bluetooth turned off (or on) on the point-of-sale device `deviceID`: its connections
    /// end (`bluetoothDisabled`) and it hears nothing.
    public func setBluetooth(device deviceID: String, enabled: Bool) {
        change { state, wakeups in
            if enabled {
                state.disabledDevices.remove(deviceID)
                return
            }
            state.disabledDevices.insert(deviceID)
            for (serial, reader) in state.readers where reader.connection?.device == deviceID {
                Self.end(serial, .bluetoothDisabled, &state, &wakeups)
            }
        }
    }

    /// Simulated time passes: batteries drain, a reader up for 24 hours (see
    /// ``Options/securityRebootAfter``) reboots (`securityReboot`) and is back at once, and a
    /// connect whose timeout has passed gives up (as it does when that much real time passes).
    public func advance(by duration: Duration) {
        let hours = Float(Double(duration.components.seconds) / 3600 + Double(duration.components.attoseconds) / 3.6e21)
        change { state, wakeups in
            state.now += duration
            for serial in state.readers.keys.sorted() where state.readers[serial]!.poweredOn {
                state.readers[serial]!.battery = max(0, state.readers[serial]!.battery - hours * options.batteryDrainPerHour)
                Self.checkBattery(serial, options.criticalBatteryLevel, &state, &wakeups)
                guard state.readers[serial]!.poweredOn, state.now - state.readers[serial]!.bootedAt >= options.securityRebootAfter else { continue }
                Self.end(serial, .securityReboot, &state, &wakeups)
                state.readers[serial]!.bootedAt = state.now
            }
        }
        let expired = state.withLock { state in
            state.connectWaiters.filter { $0.value.deadline <= state.now }.keys.sorted().compactMap { state.connectWaiters.removeValue(forKey: $0)?.waiter }
        }
        for waiter in expired { waiter.resume(returning: nil) }
    }

    /// Whether a device's connect is waiting for the reader to come within reach (a
    /// reconnect, say), so that a test can let its timeout pass with ``advance(by:)``.
    public func isConnectWaiting(for serialNumber: String) -> Bool {
        state.withLock { $0.connectWaiters.values.contains { $0.serial == serialNumber } }
    }

    /// The customer presents a card on the reader: the waiting collect reads it, or the next.
    public func presentCard(_ serialNumber: String, _ card: Card = Card()) {
        change { state, wakeups in
            guard var reader = state.readers[serialNumber] else { return }
            defer { state.readers[serialNumber] = reader }
            guard let collect = reader.collect else {
                reader.tapped = card
                return
            }
            reader.collect = nil
            reader.lastAmount = collect.amount
            wakeups.collects.append((collect.waiter, Self.collected(id: collect.id, card: card, serial: serialNumber)))
        }
    }

    /// The passkey the reader shows while pairing; nil when not pairing.
    public func displayedPasskey(_ serialNumber: String) -> String? {
        state.withLock { $0.readers[serialNumber]?.passkey }
    }

    /// The user answers the pairing on the reader: Confirm (`accepted`) or Cancel.
    public func answerPairingOnReader(_ serialNumber: String, accepted: Bool) {
        let waiter = state.withLock { state -> (CheckedContinuation<(passkey: String, accepted: Bool), Never>, (String, Bool))? in
            guard let passkey = state.readers[serialNumber]?.passkey else { return nil }
            let answer = (passkey, accepted)
            guard let waiter = state.readers[serialNumber]?.pairingWaiter else {
                state.readers[serialNumber]?.pairingAnswer = answer
                return nil
            }
            state.readers[serialNumber]?.pairingWaiter = nil
            return (waiter, answer)
        }
        if let (waiter, answer) = waiter { waiter.resume(returning: answer) }
    }

    /// The reader forgets `deviceID` (the next connect pairs again).
    public func forget(_ serialNumber: String, device deviceID: String) {
        change { state, _ in _ = state.readers[serialNumber]?.bonded.remove(deviceID) }
    }

    /// The reader's current battery level, uptime and the device connected to it.
    public func status(_ serialNumber: String) -> (batteryLevel: Float, uptime: Duration, connectedTo: String?, poweredOn: Bool)? {
        state.withLock { state in
            state.readers[serialNumber].map { ($0.battery, state.now - $0.bootedAt, $0.connection?.device, $0.poweredOn) }
        }
    }

    // MARK: what radios do

    func advertisements(device: String) -> AsyncStream<[BluetoothAdvertisement]> {
        let (stream, sink) = AsyncStream<[BluetoothAdvertisement]>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            state.listeners[state.nextID] = (device, sink)
            sink.yield(Self.heard(by: device, state))
            return state.nextID
        }
        sink.onTermination = { [weak self] _ in self?.state.withLock { _ = $0.listeners.removeValue(forKey: id) } }
        return stream
    }

    func batteryLevel(_ serialNumber: String, device: String) throws(BluetoothError) -> Float? {
        let level = state.withLock { state -> Float?? in
            guard let reader = state.readers[serialNumber], reader.advertising, !state.disabledDevices.contains(device) else { return nil }
            return .some(reader.battery)
        }
        guard let level else { throw BluetoothError(.readerNotFound, "reader \(serialNumber) is not advertising; power it on and bring it close") }
        return level
    }

    /// Connects `device` to the reader, waiting up to `timeout` for it.
    func connect(_ serialNumber: String, device: String, timeout: Duration) async throws(BluetoothError) -> SimulatedPeripheral {
        let waiterID = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        let timer = Task {
            try? await Task.sleep(for: timeout)
            stopWaiting(waiterID)
        }
        defer { timer.cancel() }
        let refusedBusy = state.withLock { $0.readers[serialNumber]?.connection.map { $0.device != device } ?? false }
        if refusedBusy {
            throw BluetoothError(.connectedToAnotherDevice, "reader \(serialNumber) is connected to another device; disconnect it there first")
        }
        let connection = await withTaskCancellationHandler {
            await withCheckedContinuation { (waiter: CheckedContinuation<UInt64?, Never>) in
                var wakeups = Wakeups()
                state.withLock { state in
                    state.connectWaiters[waiterID] = (serialNumber, device, waiter, state.now + timeout)
                    Self.serveConnects(&state, &wakeups)
                    // Connected at once: the reader stops advertising to everyone listening.
                    guard !wakeups.connects.isEmpty else { return }
                    for listener in state.listeners.values { wakeups.lists.append((listener.sink, Self.heard(by: listener.device, state))) }
                }
                wakeups.run()
                // Cancelled before it waited: the handler below found nothing to resume.
                if Task.isCancelled { self.stopWaiting(waiterID) }
            }
        } onCancel: {
            self.stopWaiting(waiterID)
        }
        guard let connection else {
            throw BluetoothError(.readerNotFound, "reader \(serialNumber) did not come within reach in \(timeout); power it on, bring it close, and check that Bluetooth is on")
        }
        let (type, version) = state.withLock { ($0.readers[serialNumber]!.advertisement.deviceType, $0.readers[serialNumber]!.advertisement.softwareVersion) }
        return SimulatedPeripheral(air: self, serialNumber: serialNumber, deviceType: type, connectedVersion: version, device: device, connection: connection)
    }

    /// A connect stops waiting (timed out or cancelled).
    func stopWaiting(_ waiterID: UInt64) {
        let waiter = state.withLock { $0.connectWaiters.removeValue(forKey: waiterID) }
        waiter?.waiter.resume(returning: nil)
    }

    func endConnection(_ serialNumber: String, connection: UInt64, reason: ReaderGatewayV1.MobileDisconnectReason) {
        change { state, wakeups in
            guard state.readers[serialNumber]?.connection?.id == connection else { return }
            Self.end(serialNumber, reason, &state, &wakeups)
        }
    }

    func waitEnded(_ connection: UInt64) async -> ReaderGatewayV1.MobileDisconnectReason {
        await withCheckedContinuation { waiter in
            let ended = state.withLock { state -> ReaderGatewayV1.MobileDisconnectReason? in
                if let reason = state.ended[connection] { return reason }
                state.endWaiters[connection, default: []].append(waiter)
                return nil
            }
            if let ended { waiter.resume(returning: ended) }
        }
    }

    /// Applies `body` under the lock, then notifies listeners and waiters.
    func change(_ body: (inout State, inout Wakeups) -> Void) {
        var wakeups = Wakeups()
        state.withLock { state in
            body(&state, &wakeups)
            Self.serveConnects(&state, &wakeups)
            for listener in state.listeners.values { wakeups.lists.append((listener.sink, Self.heard(by: listener.device, state))) }
        }
        wakeups.run()
    }

    static func heard(by device: String, _ state: State) -> [BluetoothAdvertisement] {
        guard !state.disabledDevices.contains(device) else { return [] }
        return state.readers.values.filter(\.advertising).map(\.advertisement).sorted { $0.serialNumber < $1.serialNumber }
    }

    /// Connects the waiting devices to the readers that are free now.
    static func serveConnects(_ state: inout State, _ wakeups: inout Wakeups) {
        for (id, waiting) in state.connectWaiters.sorted(by: { $0.key < $1.key }) {
            guard let reader = state.readers[waiting.serial], reader.advertising, !state.disabledDevices.contains(waiting.device) else { continue }
            state.connectWaiters[id] = nil
            state.nextID += 1
            state.readers[waiting.serial]!.connection = (waiting.device, state.nextID)
            wakeups.connects.append((waiting.waiter, state.nextID))
        }
    }

    /// Ends the reader's connection, if any, for `reason`.
    static func end(_ serial: String, _ reason: ReaderGatewayV1.MobileDisconnectReason, _ state: inout State, _ wakeups: inout Wakeups) {
        guard let connection = state.readers[serial]?.connection else { return }
        state.readers[serial]!.connection = nil
        state.readers[serial]!.passkey = nil
        // An install stops with the connection (it reports itself interrupted).
        state.readers[serial]!.installing = nil
        if let waiter = state.readers[serial]!.pairingWaiter {
            state.readers[serial]!.pairingWaiter = nil
            wakeups.pairings.append((waiter, ("", false)))
        }
        state.ended[connection.id] = reason
        for waiter in state.endWaiters.removeValue(forKey: connection.id) ?? [] { wakeups.ends.append((waiter, reason)) }
        if let collect = state.readers[serial]!.collect {
            state.readers[serial]!.collect = nil
            wakeups.collects.append((collect.waiter, result(collect.id, ReaderGatewayV1.Status(.readerError, "the reader disconnected (\(reason)) before a card was read"))))
        }
    }

    static func checkBattery(_ serial: String, _ critical: Float, _ state: inout State, _ wakeups: inout Wakeups) {
        guard let reader = state.readers[serial], reader.poweredOn, reader.battery <= critical else { return }
        end(serial, .criticallyLowBattery, &state, &wakeups)
        state.readers[serial]!.poweredOn = false
    }

    static func result(_ id: UInt64, _ status: ReaderGatewayV1.Status) -> ReaderGatewayV1.CommandResult {
        ReaderCommandResults.status(id, status)
    }

    static func collected(id: UInt64, card: Card, serial: String) -> ReaderGatewayV1.CommandResult {
        ReaderCommandResults.collected(id: id, card: card, idPrefix: "bt", reader: serial, readMethod: "contact_emv")
    }
}
