import GatewayWire

/// Bluetooth discovery on the point-of-sale device, as a value: what the radio hears in,
/// what to tell the app out. One discovery at a time.
///
/// ```
///            start (none running)                 timeout / cancel
///   idle ─────────────────────────► discovering ───────────────────► idle
///     ▲  start while discovering:       │ advertisements changed:
///     │  refused (cancel it first)      │  scan: the whole nearby list, if it changed
///     └─────────────────────────────────┘  proximity: the closest reader, twice
/// ```
///
/// - **Bluetooth scan** delivers the whole nearby list (sorted by serial number) on every
///   change until its timeout; readers show their serial numbers, never a label (the label
///   is the app's own mapping of serials).
/// - **Bluetooth proximity** picks the closest reader and delivers it twice: first with
///   only its serial number, then (once the shell read it) with its battery level. It keeps
///   that reader, even when a closer one appears, until it stops advertising (powered off);
///   then it picks the closest again.
///
/// Each discovery has an id; readers carry the id of the discovery that found them, and only
/// the latest discovery's readers may be connected (``checkConnect(readerFrom:)``).
package struct BluetoothDiscoveryStateMachine: Sendable {
    /// How to discover.
    package typealias Method = BluetoothDiscoveryMethod
    /// A reader as a discovery delivers it.
    package typealias Reader = BluetoothDiscoveredReader

    /// The states.
    package enum State: Sendable, Equatable {
        /// No discovery runs.
        case idle
        /// Discovery `id` runs with `method`; `delivered` is the last list told to the app;
        /// for proximity, `chosen` is the reader kept and `detailed` whether its second
        /// delivery (with battery) was made.
        case discovering(id: UInt64, method: Method, delivered: [Reader]?, chosen: String?, detailed: Bool)
    }

    /// What ``start(_:)`` decided.
    package enum OnStart: Sendable, Equatable {
        /// Listen to the radio; for a scan with a timeout, call ``timedOut(_:)`` after it.
        case started(id: UInt64, timeout: Duration?)
        /// A discovery already runs (`id`): cancel it first (Stripe: only one at a time).
        case refusedAlreadyRunning(id: UInt64)
    }

    /// What an advertisement change asks for.
    package enum OnAdvertisements: Sendable, Equatable {
        /// Nothing new for the app.
        case none
        /// Tell the app this list.
        case deliver([Reader])
        /// Tell the app this list (the chosen reader, serial only), then read the chosen
        /// reader's battery and call ``detailsRead(serialNumber:batteryLevel:)``.
        case deliverAndReadDetails([Reader], serialNumber: String)
    }

    /// What ending a discovery asks for.
    package enum OnEnd: Sendable, Equatable {
        /// Stop listening and finish the app's stream.
        case finish(id: UInt64)
        /// No discovery ran (or another one did): nothing to do.
        case none
    }

    /// Whether a reader may be connected.
    package enum ConnectCheck: Sendable, Equatable {
        /// It comes from the latest discovery.
        case fresh
        /// It comes from `discovery`, which `latest` superseded.
        case stale(discovery: UInt64, latest: UInt64)
    }

    package private(set) var state = State.idle
    /// The latest discovery started (0: none yet).
    package private(set) var latest: UInt64 = 0

    package init() {}

    /// Starts a discovery, unless one runs.
    package mutating func start(_ method: Method) -> OnStart {
        if case .discovering(let id, _, _, _, _) = state { return .refusedAlreadyRunning(id: id) }
        latest += 1
        state = .discovering(id: latest, method: method, delivered: nil, chosen: nil, detailed: false)
        if case .bluetoothScan(let timeout) = method { return .started(id: latest, timeout: timeout) }
        return .started(id: latest, timeout: nil)
    }

    /// The radio hears these advertisements now.
    package mutating func advertisementsChanged(_ heard: [BluetoothAdvertisement]) -> OnAdvertisements {
        guard case .discovering(let id, let method, let delivered, let chosen, _) = state else { return .none }
        switch method {
        case .bluetoothScan:
            let list = heard.sorted { $0.serialNumber < $1.serialNumber }.map {
                Reader(serialNumber: $0.serialNumber, deviceType: $0.deviceType, batteryLevel: nil, softwareVersion: $0.softwareVersion, discoveryID: id)
            }
            guard list != delivered else { return .none }
            state = .discovering(id: id, method: method, delivered: list, chosen: nil, detailed: false)
            return .deliver(list)
        case .bluetoothProximity:
            if let chosen, heard.contains(where: { $0.serialNumber == chosen }) { return .none }
            // No reader yet, or the chosen one stopped advertising: the closest now.
            let closest = heard.max { ($0.signalStrength, $1.serialNumber) < ($1.signalStrength, $0.serialNumber) }
            guard let closest else {
                guard chosen != nil else { return .none }
                state = .discovering(id: id, method: method, delivered: [], chosen: nil, detailed: false)
                return .deliver([])
            }
            let reader = Reader(serialNumber: closest.serialNumber, deviceType: closest.deviceType, batteryLevel: nil, softwareVersion: closest.softwareVersion, discoveryID: id)
            state = .discovering(id: id, method: method, delivered: [reader], chosen: reader.serialNumber, detailed: false)
            return .deliverAndReadDetails([reader], serialNumber: reader.serialNumber)
        }
    }

    /// The chosen reader's details were read (proximity's second delivery).
    package mutating func detailsRead(serialNumber: String, batteryLevel: Float?) -> OnAdvertisements {
        guard case .discovering(let id, let method, let delivered, let chosen, false) = state, chosen == serialNumber,
              var reader = delivered?.first
        else { return .none }
        reader.batteryLevel = batteryLevel
        state = .discovering(id: id, method: method, delivered: [reader], chosen: chosen, detailed: true)
        return .deliver([reader])
    }

    /// The scan's timeout for discovery `id` passed.
    package mutating func timedOut(_ id: UInt64) -> OnEnd { end(id) }

    /// The app cancelled discovery `id` (Stripe's `Cancelable.cancel()`).
    package mutating func cancelled(_ id: UInt64) -> OnEnd { end(id) }

    /// Whether a reader found by discovery `discovery` may be connected: only the latest
    /// discovery's readers may (a running or a finished one).
    package func checkConnect(readerFrom discovery: UInt64) -> ConnectCheck {
        discovery == latest ? .fresh : .stale(discovery: discovery, latest: latest)
    }

    private mutating func end(_ id: UInt64) -> OnEnd {
        guard case .discovering(let running, _, _, _, _) = state, running == id else { return .none }
        state = .idle
        return .finish(id: id)
    }
}

/// How a Bluetooth discovery looks for readers (Stripe's `BluetoothScanDiscoveryConfiguration`
/// and `BluetoothProximityDiscoveryConfiguration`).
public enum BluetoothDiscoveryMethod: Sendable, Hashable {
    /// Every nearby reader, until `timeout` (nil: until cancelled).
    case bluetoothScan(timeout: Duration?)
    /// The closest reader only (Chipper 2X BT).
    case bluetoothProximity
}

/// A reader a Bluetooth discovery found: serial number, model, and (proximity's second
/// delivery) battery level; never a label. Connect it only while its discovery is the latest.
public struct BluetoothDiscoveredReader: Sendable, Hashable {
    public var serialNumber: String
    /// The reader model (`.wisePad3`, `.stripeM2`, `.chipper2X`).
    public var deviceType: DeviceType
    /// Battery level; nil in scan results and in proximity's first delivery.
    public var batteryLevel: Float?
    public var softwareVersion: String
    /// Never set during discovery (Stripe: keep your own serial-to-label mapping).
    public var label: String? { nil }
    /// The discovery that found the reader.
    public var discoveryID: UInt64

    public init(serialNumber: String, deviceType: DeviceType, batteryLevel: Float?, softwareVersion: String, discoveryID: UInt64) {
        self.serialNumber = serialNumber
        self.deviceType = deviceType
        self.batteryLevel = batteryLevel
        self.softwareVersion = softwareVersion
        self.discoveryID = discoveryID
    }
}
