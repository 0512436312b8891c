import Foundation

/// A kind of resource a secret key's permissions name.
public enum KeyResource: String, CaseIterable, Sendable, Hashable {
    case locations, readers, ownership, tokens, updates, webhooks, events, keys
}

/// How far a key reaches into one resource; write includes read.
public enum KeyAccessLevel: Int, Comparable, Sendable, Hashable, CaseIterable {
    case none = 0, read = 1, write = 2

    public var name: String {
        switch self {
        case .none: "none"
        case .read: "read"
        case .write: "write"
        }
    }

    public init?(name: String) {
        guard let level = Self.allCases.first(where: { $0.name == name }) else { return nil }
        self = level
    }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// What a key may do: a level per resource (none when not listed).
public struct KeyPermissions: Sendable, Hashable {
    public var levels: [KeyResource: KeyAccessLevel]

    public init(_ levels: [KeyResource: KeyAccessLevel] = [:]) { self.levels = levels.filter { $0.value != .none } }

    /// Every resource at write: the account key's scope.
    public static let all = KeyPermissions(Dictionary(uniqueKeysWithValues: KeyResource.allCases.map { ($0, .write) }))

    public subscript(resource: KeyResource) -> KeyAccessLevel {
        get { levels[resource] ?? .none }
        set { levels[resource] = newValue == .none ? nil : newValue }
    }

    /// Whether these permissions hold at least `other`'s on every resource.
    public func covers(_ other: KeyPermissions) -> Bool {
        KeyResource.allCases.allSatisfy { self[$0] >= other[$0] }
    }

    /// The stored form, `resource=level` pairs in resource order (`readers=read,tokens=write`).
    public var text: String {
        KeyResource.allCases.compactMap { resource in self[resource] == .none ? nil : "\(resource.rawValue)=\(self[resource].name)" }
            .joined(separator: ",")
    }

    /// Parses ``text``; pairs naming an unknown resource or level are left out (no access),
    /// so a row written by a later release that knows more resources still reads.
    public init(text: String) {
        var levels: [KeyResource: KeyAccessLevel] = [:]
        for pair in text.split(separator: ",") {
            let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, let resource = KeyResource(rawValue: parts[0]), let level = KeyAccessLevel(name: parts[1]) else { continue }
            levels[resource] = level
        }
        self.init(levels)
    }
}

/// One secret key of an account (never its secret).
public struct ApiKeyRecord: Sendable, Hashable {
    public var id: String
    public var accountID: String
    public var name: String
    public var permissions: KeyPermissions
    /// The locations the key is limited to; nil for every location.
    public var locations: [String]?
    /// The account's first key (`accounts.secret_key_sha256`), rolled and revoked like any other.
    public var isAccountKey: Bool
    public var expiresAt: Date?
    public var createdAt: Date
    public var lastUsedAt: Date?
    public var rolledAt: Date?
    /// Until when the latest secret a roll replaced still works (nil: none does any more).
    public var previousSecretValidUntil: Date?
    public var revokedAt: Date?
    /// The last four characters of the current secret (empty for keys from before they were kept).
    public var secretLast4: String

    public init(
        id: String, accountID: String, name: String, permissions: KeyPermissions, locations: [String]?, isAccountKey: Bool = false,
        expiresAt: Date? = nil, createdAt: Date, lastUsedAt: Date? = nil, rolledAt: Date? = nil, previousSecretValidUntil: Date? = nil,
        revokedAt: Date? = nil, secretLast4: String = ""
    ) {
        self.id = id
        self.accountID = accountID
        self.name = name
        self.permissions = permissions
        self.locations = locations
        self.isAccountKey = isAccountKey
        self.expiresAt = expiresAt
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
        self.rolledAt = rolledAt
        self.previousSecretValidUntil = previousSecretValidUntil
        self.revokedAt = revokedAt
        self.secretLast4 = secretLast4
    }

    /// Whether the key may see `location` (a reader or session with no location is the
    /// account's own: only a key without a location limit sees it).
    public func covers(location: String?) -> Bool {
        guard let locations else { return true }
        guard let location else { return false }
        return locations.contains(location)
    }
}

/// Why a secret that belongs to a key no longer works.
public enum KeyRetirement: Sendable, Hashable {
    /// The secret was replaced by a roll at `rolledAt`; its overlap ended at `overlapEnded`.
    case rolled(rolledAt: Date, overlapEnded: Date)
    case revoked(at: Date)
    case expired(at: Date)
}

/// What a secret turned out to be.
public enum ApiKeyLookup: Sendable, Hashable {
    /// A working secret of the key.
    case valid(ApiKeyRecord)
    /// A secret of the key that no longer works.
    case retired(ApiKeyRecord, KeyRetirement)
    /// No key has this secret.
    case unknown

    /// Decides from the key's row whether the secret works at `now`: `previous` is nil when
    /// the secret is the key's current one, else when a roll replaced it and until when it works.
    public static func decide(_ key: ApiKeyRecord, previous: (retiredAt: Date, validUntil: Date)?, now: Date) -> ApiKeyLookup {
        if let revoked = key.revokedAt, revoked <= now { return .retired(key, .revoked(at: revoked)) }
        if let expires = key.expiresAt, expires <= now { return .retired(key, .expired(at: expires)) }
        if let previous, previous.validUntil <= now { return .retired(key, .rolled(rolledAt: previous.retiredAt, overlapEnded: previous.validUntil)) }
        return .valid(key)
    }
}
