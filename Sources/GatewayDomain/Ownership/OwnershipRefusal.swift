/// Why the gateway refused a request about a reader, named as Stripe Terminal users know it.
public enum OwnershipRefusal: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    /// failIfInUse was set and another session's collectPaymentMethod or confirmPaymentIntent
    /// is in progress on the reader ("reader busy", "reader in use"). Also: a transaction
    /// command while the owner already runs one.
    case readerBusy = "reader_busy"
    /// The request carries a generation older than the reader's: another session took the
    /// reader. The session must rediscover and connect again.
    case connectedToAnotherSession = "connected_to_another_session"
    /// The reader's own link to the gateway is down.
    case readerOffline = "reader_offline"
    /// The connect names a reader object from a discovery older than the session's latest.
    case staleDiscovery = "stale_discovery"
    /// No reader with this identity is registered.
    case unknownReader = "unknown_reader"
    /// The session does not own the reader.
    case notConnected = "not_connected"

    /// What happened and what the caller should do.
    public var description: String {
        switch self {
        case .readerBusy:
            "the reader is in use: a collectPaymentMethod or confirmPaymentIntent from another session is in progress; retry with failIfInUse false to take it over"
        case .connectedToAnotherSession:
            "the reader is connected to another session; discover readers and connect again"
        case .readerOffline:
            "the reader is offline; check its network connection and power, then discover again"
        case .staleDiscovery:
            "the reader object comes from an older discovery; connect with a reader from the most recent discoverReaders"
        case .unknownReader:
            "no such reader is registered; register it or check its id"
        case .notConnected:
            "this session is not connected to the reader; connect first"
        }
    }
}

/// Why a session lost the reader it owned (what its didDisconnect reports).
public enum DisplacementReason: String, Hashable, Sendable, CaseIterable {
    /// Another session connected with failIfInUse false, or to an idle reader.
    case connectedToAnotherSession = "connected_to_another_session"
    /// The session stopped heartbeating and its lease ran out.
    case sessionExpired = "session_expired"
    /// The reader's link went down on a live replica, or it was detached (its replica died or
    /// drained) and the reader did not come back within the offline bound.
    case readerOffline = "reader_offline"
    /// A fleet admin released the reader.
    case adminReleased = "admin_released"
}

/// The reason of one ownership history row (the values of the `ownership_reason` SQL type).
public enum OwnershipHistoryReason: String, Hashable, Sendable, CaseIterable {
    /// A session took a reader nobody owned.
    case connected
    /// A session took a reader from another session.
    case replaced
    /// A failIfInUse connect was refused because the reader was mid-transaction.
    case refusedBusy = "refused_busy"
    /// The owner disconnected.
    case released
    /// The owner's lease expired.
    case sessionExpired = "session_expired"
    /// The reader's link went down, or it stayed detached past the offline bound.
    case readerLost = "reader_lost"
    /// A fleet admin released the reader.
    case adminReleased = "admin_released"

    /// Whether rows of this reason change the owner (and so carry a new generation).
    public var changesOwner: Bool { self != .refusedBusy }
}
