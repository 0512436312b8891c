import Foundation

/// Who made an administrative change, and from where: the key (its id and name as they were
/// then), the caller's address, and the console browser's user-agent when the change came
/// from the console.
public struct AuditActor: Sendable, Hashable {
    /// The key's id (`key_...`); empty for the account key of a console session a 0.1.0 binary opened.
    public var keyID: String
    public var keyName: String
    /// The caller's `host:port`.
    public var sourceAddress: String
    /// The console browser's `User-Agent` (nil off the console).
    public var userAgent: String?

    public init(keyID: String, keyName: String, sourceAddress: String, userAgent: String? = nil) {
        self.keyID = keyID
        self.keyName = keyName
        self.sourceAddress = sourceAddress
        self.userAgent = userAgent
    }
}

/// One row of the audit log (`audit_events`, migration 23) to write.
public struct AuditEntry: Sendable, Hashable {
    /// A change that succeeded.
    public static let ok = "ok"

    public var accountID: String
    /// The `FleetAdmin` method (`ForceReleaseReader`), or `ConsoleSignIn` / `ConsoleSignOut`.
    public var action: String
    public var actor: AuditActor
    /// `ok`, or the reason of the refusal (`PERMISSION_DENIED`, `READER_NOT_FOUND`, ...).
    public var outcome: String
    public var readerID: String?
    public var locationID: String?
    /// What else the change concerns: a key's id, an update's device type and version.
    public var targetID: String?
    /// A sentence: what was done, or why it was refused.
    public var detail: String

    public init(
        accountID: String, action: String, actor: AuditActor, outcome: String = AuditEntry.ok,
        readerID: String? = nil, locationID: String? = nil, targetID: String? = nil, detail: String = ""
    ) {
        self.accountID = accountID
        self.action = action
        self.actor = actor
        self.outcome = outcome
        self.readerID = readerID
        self.locationID = locationID
        self.targetID = targetID
        self.detail = detail
    }
}

/// A row of the audit log as read back.
public struct AuditRecord: Sendable, Hashable {
    /// Increases with every row: the order they were written in, and a page's cursor.
    public var seq: Int64
    /// `aud_` and 32 hex digits.
    public var id: String
    public var createdUnixMs: Int64
    public var entry: AuditEntry

    public init(seq: Int64, id: String, createdUnixMs: Int64, entry: AuditEntry) {
        self.seq = seq
        self.id = id
        self.createdUnixMs = createdUnixMs
        self.entry = entry
    }
}

/// What `ListAuditEvents` asks for: every filter given must hold.
public struct AuditFilter: Sendable, Hashable {
    public var actions: [String] = []
    public var keyID: String?
    public var readerID: String?
    public var locationID: String?
    /// Only rows whose outcome is `ok` (true) or a refusal (false).
    public var succeeded: Bool?
    public var createdFromUnixMs: Int64?
    public var createdBeforeUnixMs: Int64?
    /// A location-limited key's locations: only rows at one of them (rows at no location are
    /// left out, as they concern the whole account).
    public var limitedTo: [String]?

    public init(
        actions: [String] = [], keyID: String? = nil, readerID: String? = nil, locationID: String? = nil, succeeded: Bool? = nil,
        createdFromUnixMs: Int64? = nil, createdBeforeUnixMs: Int64? = nil, limitedTo: [String]? = nil
    ) {
        self.actions = actions
        self.keyID = keyID
        self.readerID = readerID
        self.locationID = locationID
        self.succeeded = succeeded
        self.createdFromUnixMs = createdFromUnixMs
        self.createdBeforeUnixMs = createdBeforeUnixMs
        self.limitedTo = limitedTo
    }
}
