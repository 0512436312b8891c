import Foundation
import GatewayPostgres
import GatewayRepositories

/// The secret keys fleet admin calls and console sign-ins carry: PostgreSQL's
/// ``ApiKeyStore`` in the gateway, an in-memory table in the services' own tests. Every
/// method takes the services' clock reading (expiries, roll overlaps).
protocol AdminAccounts: Sendable {
    /// The key a secret belongs to and whether it works at `now`.
    func lookup(secret: String, now: Date) async throws(StoreError) -> ApiKeyLookup
    /// The key `id` of `account` (nil: the account has none).
    func key(_ id: String, account: String, now: Date) async throws(StoreError) -> ApiKeyRecord?
    /// The account's keys, oldest first.
    func keys(account: String, now: Date) async throws(StoreError) -> [ApiKeyRecord]
    /// Creates a key; its secret is returned once.
    func createKey(
        account: String, name: String, permissions: KeyPermissions, locations: [String]?, expiresAt: Date?, now: Date
    ) async throws(StoreError) -> (key: ApiKeyRecord, secret: String)
    /// A new secret for the key; the current one works until `overlapUntil` (nil: no such live key).
    func rollKey(_ id: String, account: String, overlapUntil: Date, now: Date) async throws(StoreError) -> (key: ApiKeyRecord, secret: String)?
    /// Revokes the key at `now` (nil: no such key).
    func revokeKey(_ id: String, account: String, now: Date) async throws(StoreError) -> ApiKeyRecord?
    /// The same three changes, each writing `audit` in its own statement when it is made (the
    /// new key's id as the created key's target).
    func createKey(
        account: String, name: String, permissions: KeyPermissions, locations: [String]?, expiresAt: Date?, now: Date, audit: AuditEntry
    ) async throws(StoreError) -> (key: ApiKeyRecord, secret: String)
    func rollKey(_ id: String, account: String, overlapUntil: Date, now: Date, audit: AuditEntry) async throws(StoreError) -> (key: ApiKeyRecord, secret: String)?
    /// `audited`: false when the key was revoked before (no row written).
    func revokeKey(_ id: String, account: String, now: Date, audit: AuditEntry) async throws(StoreError) -> (key: ApiKeyRecord, audited: Bool)?
}

/// The fleet console session whose cookie came with a call's WebSocket upgrade:
/// PostgreSQL's ``ConsoleSessionStore`` in the gateway, an in-memory table in the services'
/// own tests.
protocol ConsoleSessionRepository: Sendable {
    /// The console session whose token is `token` (nil: unknown or expired).
    func consoleSession(token: String) async throws(StoreError) -> ConsoleSessionRecord?
}

extension ApiKeyStore: AdminAccounts {}

extension ConsoleSessionStore: ConsoleSessionRepository {}
