/// Whether a Bluetooth reader keeps its owner when its link (carried by its point-of-sale
/// device's connection) ends.
///
/// | how the link ended | the owner |
/// |---|---|
/// | the device said why, and that it reconnects (auto-reconnect) | kept until the offline bound passes without a new link |
/// | the device said why, not reconnecting (disconnect requested, auto-reconnect off, reconnect failed) | released at once |
/// | the device said nothing (its connection to the gateway dropped) | kept until the offline bound (the device may be reconnecting) |
public enum MobileLinkEndRule {
    /// `reported` is nil when the device did not say why; else whether it reconnects.
    public static func keepsOwner(reconnecting reported: Bool?) -> Bool {
        reported ?? true
    }
}
