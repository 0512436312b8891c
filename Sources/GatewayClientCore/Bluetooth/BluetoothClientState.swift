/// What a ``TerminalClient`` holds of its Bluetooth readers: its discoveries
/// (``BluetoothDiscoveryStateMachine``: one at a time, only the latest one's readers connect)
/// and the readers connected through it (their links attach again when the session resumes on
/// a new connection). Events in, what to do out; the client talks to the radio and yields to
/// the discovery's stream after the lock is released.
struct BluetoothClientState: Sendable {
    /// A connected reader, held weakly: the app owns its ``BluetoothReaderConnection``.
    struct WeakConnection: Sendable {
        weak var value: BluetoothReaderConnection?
    }

    private(set) var discovery = BluetoothDiscoveryStateMachine()
    private var connections: [WeakConnection] = []

    // MARK: discovery

    /// The app starts a discovery.
    mutating func discoveryStarted(_ method: BluetoothDiscoveryStateMachine.Method) -> BluetoothDiscoveryStateMachine.OnStart {
        discovery.start(method)
    }

    /// The radio hears these advertisements now.
    mutating func advertisementsChanged(_ heard: [BluetoothAdvertisement]) -> BluetoothDiscoveryStateMachine.OnAdvertisements {
        discovery.advertisementsChanged(heard)
    }

    /// The chosen reader's details were read.
    mutating func detailsRead(serialNumber: String, batteryLevel: Float?) -> BluetoothDiscoveryStateMachine.OnAdvertisements {
        discovery.detailsRead(serialNumber: serialNumber, batteryLevel: batteryLevel)
    }

    /// The app cancelled discovery `id`.
    mutating func discoveryCancelled(_ id: UInt64) -> BluetoothDiscoveryStateMachine.OnEnd {
        discovery.cancelled(id)
    }

    /// The scan's timeout for discovery `id` passed.
    mutating func discoveryTimedOut(_ id: UInt64) -> BluetoothDiscoveryStateMachine.OnEnd {
        discovery.timedOut(id)
    }

    // MARK: connected readers

    /// A reader connected through the client.
    mutating func connected(_ connection: BluetoothReaderConnection) {
        connections.removeAll { $0.value == nil }
        connections.append(WeakConnection(value: connection))
    }

    /// The session resumed on a new connection: the readers whose links attach again.
    mutating func sessionResumed() -> [BluetoothReaderConnection] {
        connections.removeAll { $0.value == nil }
        return connections.compactMap(\.value)
    }
}
