/// The event types the gateway writes (PROTOCOL.md section 20, "Events").
///
/// Triggers of migration 21 write the reader, ownership and Tap to Pay events with the row
/// they describe; the gateway writes the command outcomes and update installs itself
/// (``EventStore``).
public enum EventType {
    public static let readerRegistered = "reader.registered"
    public static let readerDeleted = "reader.deleted"
    public static let readerOnline = "reader.online"
    public static let readerOffline = "reader.offline"
    public static let ownershipConnected = "reader.ownership.connected"
    public static let ownershipReplaced = "reader.ownership.replaced"
    public static let ownershipReleased = "reader.ownership.released"
    public static let ownershipLost = "reader.ownership.lost"
    public static let actionSucceeded = "reader.action.succeeded"
    public static let actionFailed = "reader.action.failed"
    public static let softwareUpdateInstalled = "reader.software_update.installed"
    public static let softwareUpdateFailed = "reader.software_update.failed"
    public static let tapToPayAccountBlocked = "tap_to_pay.account_blocked"
    /// Written when an endpoint's deliveries failed for the whole retry window (PROTOCOL.md section 23).
    public static let webhookEndpointDisabled = "webhook_endpoint.disabled"

    /// Every type, in the order PROTOCOL.md lists them.
    public static let all: [String] = [
        readerRegistered, readerDeleted, readerOnline, readerOffline,
        ownershipConnected, ownershipReplaced, ownershipReleased, ownershipLost,
        actionSucceeded, actionFailed, softwareUpdateInstalled, softwareUpdateFailed,
        tapToPayAccountBlocked, webhookEndpointDisabled,
    ]
}
