import GatewayCore
import GatewayChannel
import Synchronization

/// A running Bluetooth discovery (Stripe's `discoverReaders` with a Bluetooth configuration
/// and its `Cancelable`).
public final class BluetoothDiscovery: Sendable {
    /// The discovery's id; its readers carry it.
    public let id: UInt64
    /// The nearby readers: the whole list on every change (scan), or the closest reader twice
    /// (proximity). Ends when the scan times out or the discovery is cancelled.
    public let updates: AsyncStream<[BluetoothDiscoveredReader]>
    let sink: AsyncStream<[BluetoothDiscoveredReader]>.Continuation
    /// The tasks listening to the radio for this discovery (``DiscoveryTasks``).
    private let tasks = Mutex(DiscoveryTasks())
    let end: @Sendable (UInt64) -> Bool

    /// The tasks that serve a discovery, until it finishes: a task added after that is
    /// cancelled at once.
    struct DiscoveryTasks: Sendable {
        private var running: [Task<Void, Never>] = []
        private var isFinished = false

        /// `added` serve the discovery: the ones to cancel now (all of them once it finished).
        mutating func added(_ added: [Task<Void, Never>]) -> [Task<Void, Never>] {
            guard !isFinished else { return added }
            running += added
            return []
        }

        /// The discovery finished: the tasks to cancel.
        mutating func finished() -> [Task<Void, Never>] {
            isFinished = true
            defer { running = [] }
            return running
        }
    }

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
        for task in feedTasks({ $0.finished() }) { task.cancel() }
        sink.finish()
    }

    /// `tasks` serve the discovery (cancelled with it).
    func serving(_ tasks: [Task<Void, Never>]) {
        for task in feedTasks({ $0.added(tasks) }) { task.cancel() }
    }

    private func feedTasks(_ event: (inout DiscoveryTasks) -> [Task<Void, Never>]) -> [Task<Void, Never>] {
        tasks.withLock { event(&$0) }
    }
}

extension TerminalClient {
    /// Starts discovering Bluetooth readers through `radio` (Stripe's
    /// `BluetoothScanDiscoveryConfiguration` / `BluetoothProximityDiscoveryConfiguration`).
    ///
    /// Only one discovery runs at a time: while one runs this throws a ``TerminalError`` whose
    /// underlying reason is `DISCOVERY_ALREADY_IN_PROGRESS`; cancel it first. Readers from an
    /// older discovery are refused by ``connectBluetoothReader(_:radio:_:)`` with `staleDiscovery`.
    public func discoverBluetoothReaders(_ method: BluetoothDiscoveryMethod, radio: any BluetoothRadio) throws -> BluetoothDiscovery {
        let started = feedBluetooth { $0.discoveryStarted(method) }
        let id: UInt64
        let timeout: Duration?
        switch started {
        case .refusedAlreadyRunning(let running):
            throw terminalError(RPCError(
                .discoveryAlreadyInProgress,
                "Bluetooth discovery \(running) is still running; cancel it (BluetoothDiscovery.cancel()) before starting another"
            ))
        case .started(let started, let limit):
            (id, timeout) = (started, limit)
        }
        let discovery = BluetoothDiscovery(id: id) { [weak self] id in
            guard let self else { return false }
            return feedBluetooth { $0.discoveryCancelled(id) } != .none
        }
        let listen = Task { [self] in
            for await heard in radio.advertisements() {
                deliver(feedBluetooth { $0.advertisementsChanged(heard) }, to: discovery, radio: radio)
            }
        }
        var tasks = [listen]
        if let timeout {
            tasks.append(Task { [self] in
                do { try await Task.sleep(for: timeout) } catch { return }
                if feedBluetooth({ $0.discoveryTimedOut(id) }) != .none { discovery.finish() }
            })
        }
        discovery.serving(tasks)
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
                deliver(feedBluetooth { $0.detailsRead(serialNumber: serial, batteryLevel: level) }, to: discovery, radio: radio)
            }
            discovery.serving([details])
        }
    }
}
