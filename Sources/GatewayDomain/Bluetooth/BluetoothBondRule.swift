/// Who may connect a Bluetooth reader: it talks to one point-of-sale device at a time.
///
/// A reader is bonded to the device that connected it last. Another device may take the bond
/// only once the reader is free: no link (the bonded device is not connected to it) and no
/// owner (the bonded device is not holding it through a reconnect). Otherwise its connect is
/// `BLUETOOTH_ALREADY_PAIRED_WITH_ANOTHER_DEVICE`.
public enum BluetoothBondRule {
    /// The reader as the store knows it.
    public struct Bond: Sendable, Hashable {
        /// The device the reader is bonded to.
        public var device: String
        /// The reader has a link right now.
        public var online: Bool
        /// A session owns the reader (possibly through a reconnect window).
        public var owned: Bool

        public init(device: String, online: Bool, owned: Bool) {
            self.device = device
            self.online = online
            self.owned = owned
        }
    }

    /// The decision for one connect.
    public enum Decision: Sendable, Hashable {
        /// Connect; `rebonded` when the reader was bonded to another (free) device before.
        case bond(rebonded: Bool)
        /// Refuse: the reader is in use by `device`.
        case refuse(bondedTo: String)
    }

    /// Decides `device`'s connect to a reader with `bond` (nil: never bonded).
    public static func decide(device: String, bond: Bond?) -> Decision {
        guard let bond, bond.device != device else { return .bond(rebonded: false) }
        if bond.online || bond.owned { return .refuse(bondedTo: bond.device) }
        return .bond(rebonded: true)
    }
}
