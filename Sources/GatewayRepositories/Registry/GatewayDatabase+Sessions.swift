import Foundation
import GatewayPostgres

/// A connection token as stored.
public struct ConnectionTokenRecord: Sendable {
    public var accountID: String
    public var locationID: String?
    public var expired: Bool
}

extension GatewayDatabase {
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

    public func insertSession(
        id: String, account: String, posDeviceID: String, lane: String, locationScope: String?, nodeID: String, lease: Duration, token: String
    ) async throws(StoreError) {
        try await client.execute(
            """
            INSERT INTO sdk_sessions (id, account_id, pos_device_id, lane_label, location_scope, node_id, lease_expires_at, resume_token_sha256)
            VALUES ($1, $2, $3, $4, $5, $6, now() + make_interval(secs => $7::double precision), \(Secrets.hashSQL(8)))
            """,
            [
                PostgresValue(id), PostgresValue(account), PostgresValue(posDeviceID), PostgresValue(lane), locationScope.map { PostgresValue($0) },
                PostgresValue(nodeID), PostgresValue(lease.seconds), PostgresValue(token),
            ]
        )
    }

    /// Extends the lease of the given sessions by `lease` from now, where `node`
    /// still holds them (a session another replica adopted is not this one's to renew).
    public func renewLeases(_ sessions: [String], node: String, lease: Duration) async throws(StoreError) {
        guard !sessions.isEmpty else { return }
        try await client.execute(
            """
            UPDATE sdk_sessions SET lease_expires_at = now() + make_interval(secs => $2::double precision)
            WHERE id = ANY($1::text[]) AND node_id = $3 AND closed_at IS NULL
            """,
            [PostgresValue("{" + sessions.joined(separator: ",") + "}"), PostgresValue(lease.seconds), PostgresValue(node)]
        )
    }

    /// Ends the lease of a session at once (closed or expired), where `node` holds it.
    public func closeSession(_ id: String, node: String) async throws(StoreError) {
        try await client.execute(
            """
            UPDATE sdk_sessions SET closed_at = coalesce(closed_at, now()), lease_expires_at = least(lease_expires_at, now())
            WHERE id = $1 AND node_id = $2
            """,
            [PostgresValue(id), PostgresValue(node)]
        )
    }
}
