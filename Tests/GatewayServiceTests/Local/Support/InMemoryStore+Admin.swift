import Foundation
import GatewayDomain
import GatewayPostgres
@testable import GatewayRepositories
@testable import GatewayService
import GatewayWire

/// Secret keys and console sessions, as `api_keys` and `console_sessions` behave (a key's
/// secrets replaced by a roll work until their overlap ends; a session past its expiry is
/// unknown).
extension InMemoryStore: AdminAccounts, ConsoleSessionRepository {
    func lookup(secret: String, now: Date) async throws(StoreError) -> ApiKeyLookup {
        try run { tables in
            guard let entry = tables.secrets[secret], let key = tables.apiKeys[entry.keyID] else { return .unknown }
            let found = ApiKeyLookup.decide(Self.shown(key, tables, now: now), previous: entry.previous, now: now)
            if case .valid = found, key.lastUsedAt.map({ now.timeIntervalSince($0) >= 60 }) ?? true { tables.apiKeys[key.id]?.lastUsedAt = now }
            return found
        }
    }

    func key(_ id: String, account: String, now: Date) async throws(StoreError) -> ApiKeyRecord? {
        try run { tables in tables.apiKeys[id].flatMap { $0.accountID == account ? Self.shown($0, tables, now: now) : nil } }
    }

    func keys(account: String, now: Date) async throws(StoreError) -> [ApiKeyRecord] {
        try run { tables in
            tables.apiKeys.values.filter { $0.accountID == account }.sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }.map { Self.shown($0, tables, now: now) }
        }
    }

    func createKey(
        account: String, name: String, permissions: KeyPermissions, locations: [String]?, expiresAt: Date?, now: Date
    ) async throws(StoreError) -> (key: ApiKeyRecord, secret: String) {
        let secret = Secrets.secretKey()
        let key = ApiKeyRecord(
            id: Secrets.apiKeyID(), accountID: account, name: name, permissions: permissions, locations: locations, expiresAt: expiresAt,
            createdAt: now, secretLast4: String(secret.suffix(4))
        )
        try run { tables in
            tables.apiKeys[key.id] = key
            tables.secrets[secret] = (key.id, nil)
        }
        return (key, secret)
    }

    func rollKey(_ id: String, account: String, overlapUntil: Date, now: Date) async throws(StoreError) -> (key: ApiKeyRecord, secret: String)? {
        let secret = Secrets.secretKey()
        return try run { tables -> (key: ApiKeyRecord, secret: String)? in
            guard var key = tables.apiKeys[id], key.accountID == account, key.revokedAt == nil else { return nil }
            for (old, entry) in tables.secrets where entry.keyID == id && entry.previous == nil {
                tables.secrets[old] = (id, (now, overlapUntil))
            }
            tables.secrets[secret] = (id, nil)
            key.rolledAt = now
            key.secretLast4 = String(secret.suffix(4))
            tables.apiKeys[id] = key
            return (Self.shown(key, tables, now: now), secret)
        }
    }

    func revokeKey(_ id: String, account: String, now: Date) async throws(StoreError) -> ApiKeyRecord? {
        try run { tables -> ApiKeyRecord? in
            guard var key = tables.apiKeys[id], key.accountID == account else { return nil }
            if key.revokedAt == nil {
                key.revokedAt = now
                tables.apiKeys[id] = key
                tables.consoleSessions = tables.consoleSessions.filter { $0.value.keyID != id }
            }
            return Self.shown(key, tables, now: now)
        }
    }

    func createKey(
        account: String, name: String, permissions: KeyPermissions, locations: [String]?, expiresAt: Date?, now: Date, audit: AuditEntry
    ) async throws(StoreError) -> (key: ApiKeyRecord, secret: String) {
        let created = try await createKey(account: account, name: name, permissions: permissions, locations: locations, expiresAt: expiresAt, now: now)
        var entry = audit
        entry.targetID = created.key.id
        let at = clock.nowUnixMs
        _ = try run { tables in tables.appendAudit(entry, atUnixMs: at) }
        return created
    }

    func rollKey(_ id: String, account: String, overlapUntil: Date, now: Date, audit: AuditEntry) async throws(StoreError) -> (key: ApiKeyRecord, secret: String)? {
        guard let rolled = try await rollKey(id, account: account, overlapUntil: overlapUntil, now: now) else { return nil }
        let at = clock.nowUnixMs
        _ = try run { tables in tables.appendAudit(audit, atUnixMs: at) }
        return rolled
    }

    func revokeKey(_ id: String, account: String, now: Date, audit: AuditEntry) async throws(StoreError) -> (key: ApiKeyRecord, audited: Bool)? {
        let before = try run { tables in tables.apiKeys[id]?.revokedAt }
        guard let revoked = try await revokeKey(id, account: account, now: now) else { return nil }
        guard before == nil else { return (revoked, false) }
        let at = clock.nowUnixMs
        _ = try run { tables in tables.appendAudit(audit, atUnixMs: at) }
        return (revoked, true)
    }

    /// The key as `ApiKeyStore` reads it: with the latest overlap still running.
    private static func shown(_ key: ApiKeyRecord, _ tables: Tables, now: Date) -> ApiKeyRecord {
        var shown = key
        shown.previousSecretValidUntil = tables.secrets.values.filter { $0.keyID == key.id }.compactMap { $0.previous?.validUntil }.filter { $0 > now }.max()
        return shown
    }

    func consoleSession(token: String) async throws(StoreError) -> ConsoleSessionRecord? {
        let now = Date(timeIntervalSince1970: Double(clock.nowUnixMs) / 1000)
        return try run { tables in tables.consoleSessions[token].flatMap { $0.expiresAt > now ? $0 : nil } }
    }

    /// An account whose account key (every permission, every location) has secret `secretKey`.
    func addAccount(_ account: String, secretKey: String) {
        addKey(secretKey, account: account, name: "account key", permissions: .all, locations: nil)
    }

    /// A key of `account` with secret `secret`; its id.
    @discardableResult
    func addKey(_ secret: String, account: String, name: String, permissions: KeyPermissions, locations: [String]?, expiresAt: Date? = nil) -> String {
        let now = Date(timeIntervalSince1970: Double(clock.nowUnixMs) / 1000)
        let key = ApiKeyRecord(
            id: Secrets.apiKeyID(), accountID: account, name: name, permissions: permissions, locations: locations, expiresAt: expiresAt, createdAt: now,
            secretLast4: String(secret.suffix(4))
        )
        tables.withLock { tables in
            tables.apiKeys[key.id] = key
            tables.secrets[secret] = (key.id, nil)
        }
        return key.id
    }

    /// A console session of `account` with `csrfToken`, for `lifetime`.
    func addConsoleSession(token: String, account: String, csrfToken: String, lifetime: Duration = .seconds(3600), keyID: String? = nil) {
        let expires = Date(timeIntervalSince1970: Double(clock.nowUnixMs + Self.milliseconds(lifetime)) / 1000)
        tables.withLock { $0.consoleSessions[token] = ConsoleSessionRecord(accountID: account, csrfToken: csrfToken, expiresAt: expires, keyID: keyID) }
    }
}

/// Locations as `locations` behaves: ids ordered as text, another account's ids unknown.
extension InMemoryStore: LocationRepository {
    func createLocation(account: String, displayName: String, address: ReaderGatewayV1.Address, audit: AuditEntry) async throws(StoreError) -> LocationRecord {
        let created = try await createLocation(account: account, displayName: displayName, address: address)
        var entry = audit
        entry.locationID = created.id
        let at = clock.nowUnixMs
        _ = try run { tables in tables.appendAudit(entry, atUnixMs: at) }
        return created
    }

    func createLocation(account: String, displayName: String, address: ReaderGatewayV1.Address) async throws(StoreError) -> LocationRecord {
        let record = LocationRecord(id: Secrets.locationID(), displayName: displayName, address: address)
        try run { tables in tables.locations[record.id] = (account, record) }
        return record
    }

    func locations(account: String, after: String?, limit: Int) async throws(StoreError) -> [LocationRecord] {
        try run { tables in
            Array(tables.locations.filter { $0.value.account == account && (after == nil || $0.key > after!) }.sorted { $0.key < $1.key }.prefix(limit).map(\.value.record))
        }
    }

    func updateLocation(
        _ id: String, account: String, displayName: String?, address: ReaderGatewayV1.Address?, audit: AuditEntry?
    ) async throws(StoreError) -> LocationRecord? {
        let at = clock.nowUnixMs
        return try run { tables in
            guard var row = tables.locations[id], row.account == account else { return nil }
            if let displayName { row.record.displayName = displayName }
            if let address { row.record.address = address }
            tables.locations[id] = row
            if let audit { _ = tables.appendAudit(audit, atUnixMs: at) }
            return row.record
        }
    }
}

/// Registered readers as `readers` behaves: a serial number is registered once, across
/// accounts (a unique violation otherwise); a reader has no ownership row until it attaches.
extension InMemoryStore: ReaderRegistrations, ReaderCredentials {
    func insertReader(_ reader: ReaderRecord, credential: String?, audit: AuditEntry?) async throws(StoreError) {
        let at = clock.nowUnixMs
        let inserted = try run { tables -> Bool in
            guard !tables.readers.values.contains(where: { $0.serial == reader.serial }) else { return false }
            tables.readers[reader.id] = reader
            if let credential { tables.credentials[credential] = reader.id }
            if let audit { _ = tables.appendAudit(audit, atUnixMs: at) }
            return true
        }
        guard inserted else { throw Self.serialTaken(reader.serial) }
    }

    func insertReaders(_ readers: [ReaderRecord], audit: AuditEntry?) async throws {
        let at = clock.nowUnixMs
        let taken = try run { tables -> String? in
            if let taken = readers.first(where: { new in tables.readers.values.contains { $0.serial == new.serial } }) { return taken.serial }
            for reader in readers { tables.readers[reader.id] = reader }
            if let audit { _ = tables.appendAudit(audit, atUnixMs: at) }
            return nil
        }
        if let taken { throw Self.serialTaken(taken) }
    }

    func deleteReader(_ id: String, account: String, audit: AuditEntry?) async throws(StoreError) -> Bool {
        let at = clock.nowUnixMs
        return try run { tables in
            guard tables.readers[id]?.accountID == account else { return false }
            tables.readers[id] = nil
            tables.ownership[ReaderID(id)] = nil
            tables.credentials = tables.credentials.filter { $0.value != id }
            if let audit { _ = tables.appendAudit(audit, atUnixMs: at) }
            return true
        }
    }

    func reader(credential: String) async throws(StoreError) -> ReaderRecord? {
        try run { tables in tables.credentials[credential].flatMap { tables.readers[$0] } }
    }

    /// The credential the reader was registered with (nil: none).
    func credential(of reader: String) -> String? {
        tables.withLock { tables in tables.credentials.first { $0.value == reader }?.key }
    }

    static func serialTaken(_ serial: String) -> StoreError {
        StoreError(.uniqueViolation, "duplicate key value violates unique constraint \"readers_serial_number_key\" (serial_number)=(\(serial))", sqlState: "23505")
    }
}

/// Registration codes as `registration_codes` behaves: taking one deletes it, an expired one is not found.
extension InMemoryStore: RegistrationCodes {
    func insertRegistrationCode(
        _ code: String, replacing old: String?, serial: String, deviceType: ReaderGatewayV1.DeviceType,
        softwareVersion: String, node: String, lifetime: Duration
    ) async throws(StoreError) {
        let expires = clock.nowUnixMs + Self.milliseconds(lifetime)
        try run { tables in
            if let old { tables.registrationCodes[old] = nil }
            tables.registrationCodes[code] = (PendingCodeRecord(serial: serial, deviceType: deviceType, softwareVersion: softwareVersion, node: node), expires)
        }
    }

    func takeRegistrationCode(_ code: String) async throws(StoreError) -> PendingCodeRecord? {
        let now = clock.nowUnixMs
        return try run { tables in
            guard let row = tables.registrationCodes.removeValue(forKey: code), row.expiresUnixMs > now else { return nil }
            return row.pending
        }
    }

    func deleteRegistrationCode(_ code: String) async throws(StoreError) {
        try run { tables in tables.registrationCodes[code] = nil }
    }
}

/// Connection tokens minted into the same table OpenSession reads.
extension InMemoryStore: ConnectionTokenRepository {
    func createConnectionToken(account: String, location: String?, ttl: Duration, audit: AuditEntry) async throws(StoreError) -> (secret: String, expires: Date) {
        let created = try await createConnectionToken(account: account, location: location, ttl: ttl)
        let at = clock.nowUnixMs
        _ = try run { tables in tables.appendAudit(audit, atUnixMs: at) }
        return created
    }

    func createConnectionToken(account: String, location: String?, ttl: Duration) async throws(StoreError) -> (secret: String, expires: Date) {
        let secret = Secrets.connectionToken()
        let expires = clock.nowUnixMs + Self.milliseconds(ttl)
        try run { tables in tables.tokens[secret] = TokenRow(accountID: account, locationID: location, expiresUnixMs: expires) }
        return (secret, Date(timeIntervalSince1970: Double(expires) / 1000))
    }
}

/// Mobile link endings as `mobile_link_endings` behaves (newest first), and the replicas
/// alive: none but this one unless a test adds them.
extension InMemoryStore: MobileLinkEndings, ReplicaDirectory {
    func recordLinkEnding(reader: String, reason: ReaderGatewayV1.MobileDisconnectReason, reconnecting: Bool, at: Date) async throws(StoreError) {
        try run { tables in tables.linkEndings[reader, default: []].append(BluetoothStore.LinkEnding(reason: reason, reconnecting: reconnecting, at: at)) }
    }

    func linkEndings(reader: String, limit: Int) async throws(StoreError) -> [BluetoothStore.LinkEnding] {
        try run { tables in
            Array((tables.linkEndings[reader] ?? []).enumerated().sorted { ($0.element.at, $0.offset) > ($1.element.at, $1.offset) }.prefix(limit).map(\.element))
        }
    }

    func nodes() async throws(StoreError) -> [NodeRecord] {
        try run { tables in tables.nodes }
    }
}

/// The event log lives in PostgreSQL alone (its triggers write it): the local tests' store keeps
/// none, and says so to a call that reads it (the event log is tested on PostgreSQL).
extension InMemoryStore: FleetEventLog {
    func events(account: String, filter: EventFilter, beforeSeq: Int64?, limit: Int) async throws(StoreError) -> [EventRecord] {
        throw StoreError(.connectionFailed, "the in-memory store keeps no event log; test events against PostgreSQL")
    }

    func event(_ id: String, account: String) async throws(StoreError) -> EventRecord? {
        throw StoreError(.connectionFailed, "the in-memory store keeps no event log; test events against PostgreSQL")
    }

    func appendReaderEvent(_ type: String, reader: String, account: String, details: [String: String]) async throws(StoreError) -> String? {
        nil
    }

    /// Nothing is written: the event log is PostgreSQL's.
    func enqueue(_ event: ReaderEventBatcher.Event) {}

    /// The reader's new version, as `readers` keeps it (the event is PostgreSQL's).
    func softwareUpdateInstalled(reader: String, account: String, version: String, details: [String: String]) async throws -> String? {
        try await readerReported(reader, softwareVersion: version, deviceType: .unspecified)
        return nil
    }
}

/// `audit_events`: rows appended and listed as the store's statements do.
extension InMemoryStore: AdminAuditLog {
    func record(_ entry: AuditEntry) async throws(StoreError) -> String {
        let now = clock.nowUnixMs
        return try run { tables in tables.appendAudit(entry, atUnixMs: now) }
    }

    func events(account: String, filter: AuditFilter, beforeSeq: Int64?, limit: Int) async throws(StoreError) -> [AuditRecord] {
        try run { tables in
            Array(
                tables.audit.reversed().filter { record in
                    let entry = record.entry
                    return entry.accountID == account && (beforeSeq == nil || record.seq < beforeSeq!)
                        && (filter.actions.isEmpty || filter.actions.contains(entry.action))
                        && (filter.keyID == nil || entry.actor.keyID == filter.keyID)
                        && (filter.readerID == nil || entry.readerID == filter.readerID)
                        && (filter.locationID == nil || entry.locationID == filter.locationID)
                        && (filter.succeeded == nil || (entry.outcome == AuditEntry.ok) == filter.succeeded)
                        && (filter.createdFromUnixMs == nil || record.createdUnixMs >= filter.createdFromUnixMs!)
                        && (filter.createdBeforeUnixMs == nil || record.createdUnixMs < filter.createdBeforeUnixMs!)
                        && (filter.limitedTo == nil || entry.locationID.map { filter.limitedTo!.contains($0) } == true)
                }.prefix(limit)
            )
        }
    }
}

extension InMemoryStore.Tables {
    @discardableResult
    mutating func appendAudit(_ entry: AuditEntry, atUnixMs: Int64) -> String {
        let seq = Int64(audit.count + 1)
        let id = "aud_" + String(repeating: "0", count: 32 - String(seq).count) + String(seq)
        audit.append(AuditRecord(seq: seq, id: id, createdUnixMs: atUnixMs, entry: entry))
        return id
    }
}
