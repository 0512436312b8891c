import Foundation
import GatewayPostgres

/// A connection token as stored.
public struct ConnectionTokenRecord: Sendable {
    public var accountID: String
    public var locationID: String?
    public var expired: Bool

    public init(accountID: String, locationID: String?, expired: Bool) {
        self.accountID = accountID
        self.locationID = locationID
        self.expired = expired
    }
}

/// The `connection_tokens` table: tokens a point-of-sale backend mints for its lanes (only
/// their hashes are stored).
public struct ConnectionTokenStore: Sendable {
    public let client: PostgresClient

    public init(client: PostgresClient) { self.client = client }

    public func createConnectionToken(account: String, location: String?, ttl: Duration) async throws(StoreError) -> (secret: String, expires: Date) {
        let secret = Secrets.connectionToken()
        let milliseconds = ttl.components.seconds * 1000 + ttl.components.attoseconds / 1_000_000_000_000_000
        let rows = try await client.query(
            """
            INSERT INTO connection_tokens (token_sha256, account_id, location_id, expires_at)
            VALUES (\(Secrets.hashSQL(1)), $2, $3, now() + make_interval(secs => $4::double precision / 1000))
            RETURNING expires_at
            """,
            [PostgresValue(secret), PostgresValue(account), location.map { PostgresValue($0) }, PostgresValue(milliseconds)]
        )
        return (secret, try rows.first?.decode(Date.self, "expires_at") ?? Date())
    }

    /// ``createConnectionToken(account:location:ttl:)`` with `audit` written in the insert's
    /// statement (the token itself is never in the row).
    public func createConnectionToken(
        account: String, location: String?, ttl: Duration, audit: AuditEntry
    ) async throws(StoreError) -> (secret: String, expires: Date) {
        let secret = Secrets.connectionToken()
        let milliseconds = ttl.components.seconds * 1000 + ttl.components.attoseconds / 1_000_000_000_000_000
        let rows = try await client.query(
            """
            WITH created AS (
                INSERT INTO connection_tokens (token_sha256, account_id, location_id, expires_at)
                VALUES (\(Secrets.hashSQL(1)), $2, $3, now() + make_interval(secs => $4::double precision / 1000))
                RETURNING expires_at
            ), audited AS (
                \(AuditStore.insert(from: "created", parametersFrom: 5))
            )
            SELECT expires_at FROM created
            """,
            [PostgresValue(secret), PostgresValue(account), location.map { PostgresValue($0) }, PostgresValue(milliseconds)] + AuditStore.parameters(audit)
        )
        return (secret, try rows.first?.decode(Date.self, "expires_at") ?? Date())
    }

    public func connectionToken(_ secret: String) async throws(StoreError) -> ConnectionTokenRecord? {
        let rows = try await client.query(
            "SELECT account_id, location_id, expires_at <= now() AS expired FROM connection_tokens WHERE token_sha256 = \(Secrets.hashSQL(1))",
            [PostgresValue(secret)]
        )
        guard let row = rows.first else { return nil }
        return ConnectionTokenRecord(
            accountID: try row.decode(String.self, "account_id"),
            locationID: try row.decode(String?.self, "location_id"),
            expired: try row.decode(Bool.self, "expired")
        )
    }
}
