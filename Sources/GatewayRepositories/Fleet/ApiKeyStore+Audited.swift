import Foundation
import GatewayPostgres

/// Creating, rolling and revoking a key with its audit row written by the same statement
/// (a CTE beside the change), so the row commits with the change and only when it is made.
extension ApiKeyStore {
    /// ``createKey(account:name:permissions:locations:expiresAt:now:)`` with `audit` (its
    /// target the new key's id) written in the insert's statement.
    public func createKey(
        account: String, name: String, permissions: KeyPermissions, locations: [String]?, expiresAt: Date?, now: Date, audit: AuditEntry
    ) async throws(StoreError) -> (key: ApiKeyRecord, secret: String) {
        let id = Secrets.apiKeyID()
        let secret = Secrets.secretKey()
        try await client.execute(
            """
            WITH created AS (
                INSERT INTO api_keys (id, account_id, name, secret_sha256, secret_last4, permissions, location_ids, expires_at, created_at)
                VALUES ($1, $2, $3, \(Secrets.hashSQL(4)), $5, $6, string_to_array($7, ' '), $8, $9)
                RETURNING id
            )
            \(AuditStore.insert(from: "created", parametersFrom: 10, target: "created.id"))
            """,
            [
                PostgresValue(id), PostgresValue(account), PostgresValue(name), PostgresValue(secret), PostgresValue(String(secret.suffix(4))),
                PostgresValue(permissions.text), locations.map { PostgresValue($0.joined(separator: " ")) }, expiresAt.map { PostgresValue($0) },
                PostgresValue(now),
            ] + AuditStore.parameters(audit)
        )
        let key = ApiKeyRecord(
            id: id, accountID: account, name: name, permissions: permissions, locations: locations, expiresAt: expiresAt, createdAt: now,
            secretLast4: String(secret.suffix(4))
        )
        return (key, secret)
    }

    /// ``rollKey(_:account:overlapUntil:now:)`` with `audit` written in the roll's statement
    /// (nothing is written when the account has no such live key).
    public func rollKey(
        _ id: String, account: String, overlapUntil: Date, now: Date, audit: AuditEntry
    ) async throws(StoreError) -> (key: ApiKeyRecord, secret: String)? {
        let secret = Secrets.secretKey()
        let rows = try await client.query(
            """
            WITH old AS (
                SELECT id, secret_sha256, account_key FROM api_keys
                WHERE id = $1 AND account_id = $2 AND revoked_at IS NULL FOR UPDATE
            ), kept AS (
                INSERT INTO api_key_previous_secrets (secret_sha256, key_id, retired_at, valid_until)
                SELECT secret_sha256, id, $5, $4 FROM old
            ), account_secret AS (
                UPDATE accounts SET secret_key_sha256 = \(Secrets.hashSQL(3))
                WHERE id = $2 AND EXISTS (SELECT 1 FROM old WHERE account_key)
            ), rolled AS (
                UPDATE api_keys k SET secret_sha256 = \(Secrets.hashSQL(3)), secret_last4 = $6, rolled_at = $5
                FROM old WHERE k.id = old.id
                RETURNING k.id
            ), audited AS (
                \(AuditStore.insert(from: "rolled", parametersFrom: 7))
            )
            SELECT id FROM rolled
            """,
            [PostgresValue(id), PostgresValue(account), PostgresValue(secret), PostgresValue(overlapUntil), PostgresValue(now), PostgresValue(String(secret.suffix(4)))]
                + AuditStore.parameters(audit)
        )
        guard !rows.isEmpty, let key = try await key(id, account: account, now: now) else { return nil }
        return (key, secret)
    }

    /// ``revokeKey(_:account:now:)`` with `audit` written in the revocation's statement when
    /// it revokes the key (`audited`: false for a key revoked before, answered as it is).
    public func revokeKey(
        _ id: String, account: String, now: Date, audit: AuditEntry
    ) async throws(StoreError) -> (key: ApiKeyRecord, audited: Bool)? {
        let rows = try await client.query(
            """
            WITH revoked AS (
                UPDATE api_keys SET revoked_at = $3
                WHERE id = $1 AND account_id = $2 AND revoked_at IS NULL
                RETURNING id, account_key
            ), sessions AS (
                DELETE FROM console_sessions WHERE api_key_id IN (SELECT id FROM revoked)
            ), account_secret AS (
                UPDATE accounts SET secret_key_sha256 = \(Secrets.hashSQL(4))
                WHERE id = $2 AND EXISTS (SELECT 1 FROM revoked WHERE account_key)
            ), audited AS (
                \(AuditStore.insert(from: "revoked", parametersFrom: 5))
            )
            SELECT count(*)::bigint AS revoked FROM revoked
            """,
            [PostgresValue(id), PostgresValue(account), PostgresValue(now), PostgresValue(Secrets.secretKey())] + AuditStore.parameters(audit)
        )
        let audited = try rows.first?.decode(Int64.self, "revoked") ?? 0 > 0
        guard let revoked = try await key(id, account: account, now: now) else { return nil }
        if audited {
            _ = try await client.execute("SELECT pg_notify($1, $2)", [PostgresValue(Self.revocationChannel), PostgresValue(id)])
        }
        return (revoked, audited)
    }
}
