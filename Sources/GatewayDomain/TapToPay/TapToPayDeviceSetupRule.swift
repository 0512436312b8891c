/// Whether a phone must be set up before its Tap to Pay reader takes payments.
///
/// Stripe shows the setup as a configuration update during connect. It is needed once per
/// device, and again when what it was made for no longer holds:
///
/// | the device's recorded setup | the connect |
/// |---|---|
/// | none (first connect on the device) | sets up (``Reason/firstConnect``) |
/// | another operating system version (an OS update) | sets up (``Reason/osVersionChanged``) |
/// | another model (the id moved to another phone) | sets up (``Reason/modelChanged``) |
/// | the same model and version | no setup |
///
/// Pure: the gateway reads the recorded setup from PostgreSQL and asks this rule.
public enum TapToPayDeviceSetupRule {
    /// What a device was set up for.
    public struct Setup: Sendable, Hashable {
        public var model: String
        public var osVersion: String

        public init(model: String, osVersion: String) {
            self.model = model
            self.osVersion = osVersion
        }
    }

    /// Why a setup is needed.
    public enum Reason: Sendable, Hashable {
        /// The device was never set up.
        case firstConnect
        /// The device was set up for another operating system version.
        case osVersionChanged(from: String)
        /// The device id was set up on another model.
        case modelChanged(from: String)
    }

    /// Nil when `device` is set up (per `recorded`); else why it must be.
    public static func setupNeeded(recorded: Setup?, device: Setup) -> Reason? {
        guard let recorded else { return .firstConnect }
        if recorded.model != device.model { return .modelChanged(from: recorded.model) }
        if recorded.osVersion != device.osVersion { return .osVersionChanged(from: recorded.osVersion) }
        return nil
    }
}
