import GatewayCore
import GatewayRPC
import Synchronization

/// A reader a Bluetooth discovery found: serial number, model, and (proximity's second
/// delivery) battery level; never a label. Connect it only while its discovery is the latest.
public typealias BluetoothDiscoveredReader = BluetoothDiscoveryStateMachine.Reader

/// A running Bluetooth discovery (Stripe's `discoverReaders` with a Bluetooth configuration
/// and its `Cancelable`).
public final class BluetoothDiscovery: Sendable {
    /// The discovery's id; its readers carry it.
    public let id: UInt64
    /// The nearby readers: the whole list on every change (scan), or the closest reader twice
    /// (proximity). Ends when the scan times out or the discovery is cancelled.
    public let updates: AsyncStream<[BluetoothDiscoveredReader]>
    let sink: AsyncStream<[BluetoothDiscoveredReader]>.Continuation
    let tasks = Mutex<[Task<Void, Never>]>([])
    let end: @Sendable (UInt64) -> Bool

    init(id: UInt64, end: @escaping @Sendable (UInt64) -> Bool) {
        self.id = id
        self.end = end
        (updates, sink) = AsyncStream.makeStream(bufferingPolicy: .unbounded)
    }

    /// Stops the discovery (a new one may start).
    public func cancel() {
        guard end(id) else { return }
        finish()
    }

    func finish() {
        let tasks = tasks.withLock { tasks in
            defer { tasks = [] }
            return tasks
        }
        for task in tasks { task.cancel() }
        sink.finish()
    }
}

extension TerminalClient {
    /// Starts discovering Bluetooth readers through `radio` (Stripe's
    /// `BluetoothScanDiscoveryConfiguration` / `BluetoothProximityDiscoveryConfiguration`).
    ///
    /// Only one discovery runs at a time: while one runs this throws
    /// `DISCOVERY_ALREADY_IN_PROGRESS`; cancel it first. Readers from an older discovery are
    /// refused by ``connectBluetoothReader(_:radio:_:)`` with `STALE_DISCOVERY`.
    public func discoverBluetoothReaders(_ method: BluetoothDiscoveryStateMachine.Method, radio: any BluetoothRadio) throws -> BluetoothDiscovery {
        let started = state.withLock { $0.bluetooth.discovery.start(method) }
        let id: UInt64
        let timeout: Duration?
        switch started {
        case .refusedAlreadyRunning(let running):
            throw RPCError(
                .discoveryAlreadyInProgress,
                "Bluetooth discovery \(running) is still running; cancel it (BluetoothDiscovery.cancel()) before starting another"
            )
        case .started(let started, let limit):
            (id, timeout) = (started, limit)
        }
        let discovery = BluetoothDiscovery(id: id) { [weak self] id in
            guard let self else { return false }
            return state.withLock { $0.bluetooth.discovery.cancelled(id) } != .none
        }
        let listen = Task { [self] in
            for await heard in radio.advertisements() {
                deliver(state.withLock { $0.bluetooth.discovery.advertisementsChanged(heard) }, to: discovery, radio: radio)
            }
        }
        var tasks = [listen]
        if let timeout {
            tasks.append(Task { [self] in
                do { try await Task.sleep(for: timeout) } catch { return }
                if state.withLock({ $0.bluetooth.discovery.timedOut(id) }) != .none { discovery.finish() }
            })
        }
        discovery.tasks.withLock { $0 = tasks }
        return discovery
    }

    private func deliver(_ outcome: BluetoothDiscoveryStateMachine.OnAdvertisements, to discovery: BluetoothDiscovery, radio: any BluetoothRadio) {
        switch outcome {
        case .none:
            return
        case .deliver(let readers):
            discovery.sink.yield(readers)
        case .deliverAndReadDetails(let readers, let serial):
            discovery.sink.yield(readers)
            let details = Task { [self] in
                let level: Float?
                do { level = try await radio.readBatteryLevel(serialNumber: serial) } catch {
                    Logger(component: "bluetooth").notice("could not read a discovered reader's battery level", ["serial": serial, "error": "\(error)"])
                    return
                }
                deliver(state.withLock { $0.bluetooth.discovery.detailsRead(serialNumber: serial, batteryLevel: level) }, to: discovery, radio: radio)
            }
            discovery.tasks.withLock { $0.append(details) }
        }
    }
}
