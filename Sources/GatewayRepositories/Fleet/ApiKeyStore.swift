import Foundation
import GatewayPostgres

/// The `api_keys` table (and the secrets rolls replaced): an account's secret keys.
///
/// Every method takes the time it acts at (`now`), the services' clock, so expiries and roll
/// overlaps are decided against the same clock as everything else. Nothing is cached: each
/// call reads the key's row, so a revocation holds on every replica from its commit on.
public struct ApiKeyStore: Sendable {
    public let client: PostgresClient

    /// The channel a revocation is announced on (payload: the key's id), so that every replica
    /// ends the streams the key opened (`WatchFleet`).
    public static let revocationChannel = "reader_gateway_keys"

    public init(client: PostgresClient) { self.client = client }

    static let columns = """
        k.id, k.account_id, k.name, k.permissions, array_to_string(k.location_ids, ' ') AS location_ids, k.location_ids IS NULL AS all_locations,
        k.account_key, k.expires_at, k.created_at, k.last_used_at, k.rolled_at, k.revoked_at, k.secret_last4,
        (SELECT max(p.valid_until) FROM api_key_previous_secrets p WHERE p.key_id = k.id AND p.valid_until > $NOW) AS previous_valid_until
        """

    /// The key whose current secret, or a secret a roll replaced, is `secret`, and whether it
    /// works at `now`; its last use is noted (at most once a minute). A new account's key
    /// (only in `accounts`, as `Accounts.create` and a 0.1.0 binary write it) is adopted here
    /// as the account key on its first use.
    public func lookup(secret: String, now: Date) async throws(StoreError) -> ApiKeyLookup {
        if let found = try await find(secret: secret, now: now) { return found }
        let adopted = try await client.execute(
            """
            INSERT INTO api_keys (id, account_id, name, secret_sha256, secret_last4, permissions, account_key, created_at)
            SELECT $2, a.id, 'account key', a.secret_key_sha256, right($1, 4), $3, true, a.created_at
            FROM accounts a WHERE a.secret_key_sha256 = \(Secrets.hashSQL(1))
            ON CONFLICT DO NOTHING
            """,
            [PostgresValue(secret), PostgresValue(Secrets.apiKeyID()), PostgresValue(Migration.accountKeyPermissions)]
        )
        guard adopted > 0 else { return .unknown }
        return try await find(secret: secret, now: now) ?? .unknown
    }

    private func find(secret: String, now: Date) async throws(StoreError) -> ApiKeyLookup? {
        let rows = try await client.query(
            """
            WITH matched AS (
                SELECT k.id, NULL::timestamptz AS retired_at, NULL::timestamptz AS valid_until
                FROM api_keys k WHERE k.secret_sha256 = \(Secrets.hashSQL(1))
                UNION ALL
                SELECT p.key_id, p.retired_at, p.valid_until
                FROM api_key_previous_secrets p WHERE p.secret_sha256 = \(Secrets.hashSQL(1))
            ), touched AS (
                UPDATE api_keys k SET last_used_at = $2
                FROM matched m
                WHERE k.id = m.id AND k.revoked_at IS NULL AND (k.last_used_at IS NULL OR k.last_used_at < $2 - interval '1 minute')
            )
            SELECT \(Self.columns.replacingOccurrences(of: "$NOW", with: "$2")), m.retired_at, m.valid_until
            FROM matched m JOIN api_keys k ON k.id = m.id
            """,
            [PostgresValue(secret), PostgresValue(now)]
        )
        guard let row = rows.first else { return nil }
        let key = try Self.record(row)
        let retiredAt = try row.decode(Date?.self, "retired_at")
        let validUntil = try row.decode(Date?.self, "valid_until")
        let previous = retiredAt.flatMap { retired in validUntil.map { (retiredAt: retired, validUntil: $0) } }
        return ApiKeyLookup.decide(key, previous: previous, now: now)
    }

    /// The key `id` of `account`, if any.
    public func key(_ id: String, account: String, now: Date) async throws(StoreError) -> ApiKeyRecord? {
        let rows = try await client.query(
            "SELECT \(Self.columns.replacingOccurrences(of: "$NOW", with: "$3")) FROM api_keys k WHERE k.id = $1 AND k.account_id = $2",
            [PostgresValue(id), PostgresValue(account), PostgresValue(now)]
        )
        return try rows.first.map(Self.record)
    }

    /// The account's keys, oldest first.
    public func keys(account: String, now: Date) async throws(StoreError) -> [ApiKeyRecord] {
        let rows = try await client.query(
            "SELECT \(Self.columns.replacingOccurrences(of: "$NOW", with: "$2")) FROM api_keys k WHERE k.account_id = $1 ORDER BY k.created_at, k.id",
            [PostgresValue(account), PostgresValue(now)]
        )
        return try rows.map(Self.record)
    }

    /// Creates a key and returns it with its secret (shown once; only its hash is kept).
    public func createKey(
        account: String, name: String, permissions: KeyPermissions, locations: [String]?, expiresAt: Date?, now: Date
    ) async throws(StoreError) -> (key: ApiKeyRecord, secret: String) {
        let id = Secrets.apiKeyID()
        let secret = Secrets.secretKey()
        try await client.execute(
            """
            INSERT INTO api_keys (id, account_id, name, secret_sha256, secret_last4, permissions, location_ids, expires_at, created_at)
            VALUES ($1, $2, $3, \(Secrets.hashSQL(4)), $5, $6, string_to_array($7, ' '), $8, $9)
            """,
            [
                PostgresValue(id), PostgresValue(account), PostgresValue(name), PostgresValue(secret), PostgresValue(String(secret.suffix(4))),
                PostgresValue(permissions.text), locations.map { PostgresValue($0.joined(separator: " ")) }, expiresAt.map { PostgresValue($0) },
                PostgresValue(now),
            ]
        )
        let key = ApiKeyRecord(
            id: id, accountID: account, name: name, permissions: permissions, locations: locations, expiresAt: expiresAt, createdAt: now,
            secretLast4: String(secret.suffix(4))
        )
        return (key, secret)
    }

    /// Gives key `id` a new secret; the current one keeps working until `overlapUntil`. Nil
    /// when the account has no such key or it is revoked. Rolling the account key also
    /// moves `accounts.secret_key_sha256` to the new secret (what a 0.1.0 binary checks).
    public func rollKey(_ id: String, account: String, overlapUntil: Date, now: Date) async throws(StoreError) -> (key: ApiKeyRecord, secret: String)? {
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
            )
            UPDATE api_keys k SET secret_sha256 = \(Secrets.hashSQL(3)), secret_last4 = $6, rolled_at = $5
            FROM old WHERE k.id = old.id
            RETURNING k.id
            """,
            [PostgresValue(id), PostgresValue(account), PostgresValue(secret), PostgresValue(overlapUntil), PostgresValue(now), PostgresValue(String(secret.suffix(4)))]
        )
        guard !rows.isEmpty, let key = try await key(id, account: account, now: now) else { return nil }
        return (key, secret)
    }

    /// Revokes key `id` at `now`: every secret of it stops working and its console sessions
    /// end. Revoking the account key also gives `accounts.secret_key_sha256` the hash of a
    /// secret nobody has. Every replica is told on ``revocationChannel`` (after the commit).
    /// Nil when the account has no such key; an already revoked key is answered as it is.
    public func revokeKey(_ id: String, account: String, now: Date) async throws(StoreError) -> ApiKeyRecord? {
        try await client.execute(
            """
            WITH revoked AS (
                UPDATE api_keys SET revoked_at = $3
                WHERE id = $1 AND account_id = $2 AND revoked_at IS NULL
                RETURNING id, account_key
            ), sessions AS (
                DELETE FROM console_sessions WHERE api_key_id IN (SELECT id FROM revoked)
            )
            UPDATE accounts SET secret_key_sha256 = \(Secrets.hashSQL(4))
            WHERE id = $2 AND EXISTS (SELECT 1 FROM revoked WHERE account_key)
            """,
            [PostgresValue(id), PostgresValue(account), PostgresValue(now), PostgresValue(Secrets.secretKey())]
        )
        let revoked = try await key(id, account: account, now: now)
        if revoked?.revokedAt != nil {
            _ = try await client.execute("SELECT pg_notify($1, $2)", [PostgresValue(Self.revocationChannel), PostgresValue(id)])
        }
        return revoked
    }

    static func record(_ row: PostgresRow) throws(StoreError) -> ApiKeyRecord {
        let locations = try row.decode(Bool.self, "all_locations") ? nil : try row.decode(String?.self, "location_ids").map {
            $0.split(separator: " ").map(String.init)
        } ?? []
        return ApiKeyRecord(
            id: try row.decode(String.self, "id"),
            accountID: try row.decode(String.self, "account_id"),
            name: try row.decode(String.self, "name"),
            permissions: KeyPermissions(text: try row.decode(String.self, "permissions")),
            locations: locations,
            isAccountKey: try row.decode(Bool.self, "account_key"),
            expiresAt: try row.decode(Date?.self, "expires_at"),
            createdAt: try row.decode(Date.self, "created_at"),
            lastUsedAt: try row.decode(Date?.self, "last_used_at"),
            rolledAt: try row.decode(Date?.self, "rolled_at"),
            previousSecretValidUntil: try row.decode(Date?.self, "previous_valid_until"),
            revokedAt: try row.decode(Date?.self, "revoked_at"),
            secretLast4: try row.decode(String.self, "secret_last4")
        )
    }
}
