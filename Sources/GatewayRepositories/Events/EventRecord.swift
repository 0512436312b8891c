/// One event of the log (`events`, migration 21): what happened to an account's fleet, with
/// the object as it stood after the change.
public struct EventRecord: Sendable, Hashable {
    /// Orders events as they were written; the cursor of a page (``PageCursor``).
    public var seq: Int64
    /// `evt_` and 32 hex digits.
    public var id: String
    public var accountID: String
    /// One of ``EventType``'s names (`reader.online`, ...).
    public var type: String
    public var readerID: String?
    public var locationID: String?
    public var createdUnixMs: Int64
    /// The object after the change, as JSON (shapes in PROTOCOL.md section 20, "Events").
    public var objectJSON: String

    public init(
        seq: Int64, id: String, accountID: String, type: String, readerID: String?, locationID: String?,
        createdUnixMs: Int64, objectJSON: String
    ) {
        self.seq = seq
        self.id = id
        self.accountID = accountID
        self.type = type
        self.readerID = readerID
        self.locationID = locationID
        self.createdUnixMs = createdUnixMs
        self.objectJSON = objectJSON
    }
}

/// Which events a list returns: every condition given must hold (none given: all of the
/// account's events).
public struct EventFilter: Sendable, Hashable {
    /// Any of these types; empty for every type.
    public var types: [String]
    public var readerID: String?
    public var locationID: String?
    /// Only events at one of these locations (a location-limited key's); nil: no limit.
    public var limitedTo: [String]?
    /// Created at or after (inclusive).
    public var createdFromUnixMs: Int64?
    /// Created before (exclusive).
    public var createdBeforeUnixMs: Int64?

    public init(
        types: [String] = [], readerID: String? = nil, locationID: String? = nil,
        createdFromUnixMs: Int64? = nil, createdBeforeUnixMs: Int64? = nil
    ) {
        self.types = types
        self.readerID = readerID
        self.locationID = locationID
        self.createdFromUnixMs = createdFromUnixMs
        self.createdBeforeUnixMs = createdBeforeUnixMs
    }
}
