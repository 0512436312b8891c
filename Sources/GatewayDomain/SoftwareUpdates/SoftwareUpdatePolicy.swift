/// Which software update a reader must or may install, from the account's catalog for its
/// device type (Stripe Terminal's rules for Bluetooth readers, served by the gateway):
///
/// - an update newer than the reader's version is **available**; the newest one is offered;
/// - it is **required** once the `requiredAt` of any newer update has passed: it installs
///   during connect, and only with the battery above 50 % (a reader without a battery, on
///   mains power, always qualifies);
/// - a failed required install still lets the connect through when the reader ran its
///   location's latest version within the last 30 days (``mayConnectAfterFailedUpdate``);
///   the next connect tries again.
///
/// The *location's latest version* is the newest catalog version whose `requiredAt` has
/// passed: a reader that needs no required update runs it (or newer), which the caller
/// records as "ran the latest at" (``runsLatest``).
///
/// A location may have an ``InstallWindow``: there an update whose `requiredAt` falls outside
/// the window becomes required at the window's next opening (``Update/requiredFromMs(in:)``),
/// for every rule above (what the connect installs, the location's latest version). Once
/// required it is required at any hour.
///
/// Pure: the time is an argument (milliseconds since the Unix epoch), so tests set it.
public enum SoftwareUpdatePolicy {
    /// The battery level a required install needs to exceed.
    public static let minimumBatteryLevel: Float = 0.5
    /// How long after running the location's latest version a reader may still connect when a
    /// required install fails.
    public static let failedUpdateGraceMs: Int64 = 30 * 24 * 3600 * 1000

    /// One catalog entry as the policy sees it.
    public struct Update: Sendable, Hashable {
        public var version: SoftwareVersion
        /// When it becomes required; nil for never.
        public var requiredAtMs: Int64?

        public init(version: SoftwareVersion, requiredAtMs: Int64?) {
            self.version = version
            self.requiredAtMs = requiredAtMs
        }

        /// When the update becomes required at a location with `window` (none: every
        /// hour): its `requiredAt`, or the window's next opening after it; nil for never.
        public func requiredFromMs(in window: InstallWindow?) -> Int64? {
            guard let requiredAtMs else { return nil }
            return window?.nextOpening(atOrAfter: requiredAtMs) ?? requiredAtMs
        }

        /// Whether the update is required at `nowMs` at a location with `window`.
        public func isRequired(atMs nowMs: Int64, in window: InstallWindow? = nil) -> Bool {
            guard let requiredFromMs = requiredFromMs(in: window) else { return false }
            return requiredFromMs <= nowMs
        }
    }

    /// The reader as the policy sees it.
    public struct Reader: Sendable, Hashable {
        /// The version it runs; nil when it reported none the policy can read (any
        /// catalog version is newer).
        public var version: SoftwareVersion?
        /// From 0 to 1; nil for a reader without a battery.
        public var batteryLevel: Float?

        public init(version: SoftwareVersion?, batteryLevel: Float?) {
            self.version = version
            self.batteryLevel = batteryLevel
        }
    }

    /// What the reader's connect (or an install request) does about updates.
    public enum Decision: Sendable, Hashable {
        /// The reader runs the newest catalog version (or the catalog is empty).
        case upToDate
        /// `update` is available and not required: report it, install on request.
        case optional(Update)
        /// `update` must install before the reader may be connected.
        case required(Update)
        /// `update` is required, but the battery (`batteryLevel`) is at or below
        /// ``minimumBatteryLevel``: the connect fails and the reader is released.
        case requiredBatteryLow(Update, batteryLevel: Float)

        /// The update this decision offers or requires.
        public var update: Update? {
            switch self {
            case .upToDate: nil
            case .optional(let update), .required(let update), .requiredBatteryLow(let update, _): update
            }
        }

        /// Whether no required update is pending: the reader runs the location's latest version.
        public var runsLatest: Bool {
            switch self {
            case .upToDate, .optional: true
            case .required, .requiredBatteryLow: false
            }
        }
    }

    /// Decides for `reader` against `catalog` (its device type's entries) at `nowMs`, at a
    /// location with `window` (nil: updates become required at their `requiredAt`).
    public static func decide(_ reader: Reader, catalog: [Update], nowMs: Int64, window: InstallWindow? = nil) -> Decision {
        let newer = catalog.filter { update in reader.version.map { update.version > $0 } ?? true }
        guard let newest = newer.max(by: { $0.version < $1.version }) else { return .upToDate }
        guard newer.contains(where: { $0.isRequired(atMs: nowMs, in: window) }) else { return .optional(newest) }
        if let battery = reader.batteryLevel, battery <= minimumBatteryLevel {
            return .requiredBatteryLow(newest, batteryLevel: battery)
        }
        return .required(newest)
    }

    /// Whether the reader may still be connected after its required install failed: it ran
    /// its location's latest version at `lastRanLatestAtMs` (nil: never, as far as the
    /// gateway knows), at most ``failedUpdateGraceMs`` before `nowMs`.
    public static func mayConnectAfterFailedUpdate(lastRanLatestAtMs: Int64?, nowMs: Int64) -> Bool {
        guard let lastRanLatestAtMs else { return false }
        return nowMs - lastRanLatestAtMs <= failedUpdateGraceMs
    }
}
