import Foundation
import GatewayPostgres

/// Webhook endpoints (`webhook_endpoints`, migration 25): their creation, listing, update and
/// deletion, each with its audit row written by the change's own statement, and the resends
/// that queue an event again for one endpoint.
///
/// The delivery queue itself is ``WebhookStore`` + `Deliveries`: the trigger of migration 25
/// fills it with every event; the delivery worker claims from it.
public struct WebhookStore: Sendable {
    public let client: PostgresClient

    public init(client: PostgresClient) { self.client = client }

    static let columns = """
        id, account_id, url, description, array_to_string(enabled_events, ' ') AS enabled_events, disabled_reason,
        floor(extract(epoch FROM created) * 1000)::bigint AS created_ms,
        floor(extract(epoch FROM failing_since) * 1000)::bigint AS failing_ms
        """

    /// Creates an endpoint with a new signing secret, and `audit` (its target the endpoint)
    /// in the same statement. The secret is answered here and never again.
    public func create(
        account: String, url: String, description: String, enabledEvents: [String], audit: AuditEntry
    ) async throws(StoreError) -> (endpoint: WebhookEndpoint, secret: String) {
        let secret = Secrets.webhookSecret()
        let rows = try await client.query(
            """
            WITH created AS (
                INSERT INTO webhook_endpoints (id, account_id, url, description, enabled_events, secret)
                VALUES ($1, $2, $3, $4, string_to_array($5, ' '), $6)
                RETURNING \(Self.columns)
            ), audited AS (
                \(AuditStore.insert(from: "created", parametersFrom: 7, target: "created.id"))
            )
            SELECT * FROM created
            """,
            [
                PostgresValue(Secrets.webhookEndpointID()), PostgresValue(account), PostgresValue(url), PostgresValue(description),
                PostgresValue(enabledEvents.joined(separator: " ")), PostgresValue(secret),
            ] + AuditStore.parameters(audit)
        )
        guard let row = rows.first else { throw StoreError(.decodingFailed, "creating a webhook endpoint answered no row") }
        return (try Self.endpoint(row), secret)
    }

    /// The account's endpoints, newest first.
    public func endpoints(account: String) async throws(StoreError) -> [WebhookEndpoint] {
        let rows = try await client.query(
            "SELECT \(Self.columns) FROM webhook_endpoints WHERE account_id = $1 ORDER BY created DESC, id", [PostgresValue(account)]
        )
        var endpoints: [WebhookEndpoint] = []
        for row in rows { endpoints.append(try Self.endpoint(row)) }
        return endpoints
    }

    /// One endpoint of the account (nil for an unknown id, or another account's).
    public func endpoint(_ id: String, account: String) async throws(StoreError) -> WebhookEndpoint? {
        let rows = try await client.query(
            "SELECT \(Self.columns) FROM webhook_endpoints WHERE id = $1 AND account_id = $2", [PostgresValue(id), PostgresValue(account)]
        )
        return try rows.first.map { row throws(StoreError) in try Self.endpoint(row) }
    }

    /// Applies `change` and writes `audit` in the same statement; nil (nothing written) when
    /// the account has no such endpoint. Enabling forgets a failing streak.
    public func update(_ id: String, account: String, change: WebhookEndpointChange, audit: AuditEntry) async throws(StoreError) -> WebhookEndpoint? {
        let rows = try await client.query(
            """
            WITH updated AS (
                UPDATE webhook_endpoints SET
                    url = coalesce($3, url),
                    description = coalesce($4, description),
                    enabled_events = coalesce(string_to_array($5, ' '), enabled_events),
                    status = CASE WHEN $6::boolean IS NULL THEN status WHEN $6::boolean THEN 'enabled' ELSE 'disabled' END,
                    disabled_reason = CASE WHEN $6::boolean IS NULL THEN disabled_reason WHEN $6::boolean THEN NULL ELSE 'requested' END,
                    failing_since = CASE WHEN $6::boolean THEN NULL ELSE failing_since END,
                    updated = clock_timestamp()
                WHERE id = $1 AND account_id = $2
                RETURNING \(Self.columns)
            ), audited AS (
                \(AuditStore.insert(from: "updated", parametersFrom: 7))
            )
            SELECT * FROM updated
            """,
            [
                PostgresValue(id), PostgresValue(account), change.url.map { PostgresValue($0) }, change.description.map { PostgresValue($0) },
                change.enabledEvents.map { PostgresValue($0.joined(separator: " ")) }, change.enabled.map { PostgresValue($0) },
            ] + AuditStore.parameters(audit)
        )
        return try rows.first.map { row throws(StoreError) in try Self.endpoint(row) }
    }

    /// Deletes the endpoint and its queued deliveries, writing `audit` in the same statement;
    /// nil (nothing written) when the account has no such endpoint.
    public func delete(_ id: String, account: String, audit: AuditEntry) async throws(StoreError) -> WebhookEndpoint? {
        let rows = try await client.query(
            """
            WITH deleted AS (
                DELETE FROM webhook_endpoints WHERE id = $1 AND account_id = $2
                RETURNING \(Self.columns)
            ), audited AS (
                \(AuditStore.insert(from: "deleted", parametersFrom: 3))
            )
            SELECT * FROM deleted
            """,
            [PostgresValue(id), PostgresValue(account)] + AuditStore.parameters(audit)
        )
        return try rows.first.map { row throws(StoreError) in try Self.endpoint(row) }
    }

    /// Queues `event` again for `endpoint` (a new delivery, the same event id), with `audit`
    /// in the same statement. False (nothing written) when the account has no such event or
    /// no such endpoint.
    public func resend(event: String, endpoint: String, account: String, audit: AuditEntry) async throws(StoreError) -> Bool {
        let rows = try await client.query(
            """
            WITH queued AS (
                INSERT INTO webhook_deliveries (endpoint_id, event_seq, event_id, reader_id)
                SELECT w.id, e.seq, e.id, e.reader_id
                FROM events e, webhook_endpoints w
                WHERE e.id = $1 AND e.account_id = $3 AND w.id = $2 AND w.account_id = $3
                RETURNING id
            ), audited AS (
                \(AuditStore.insert(from: "queued", parametersFrom: 4))
            )
            SELECT count(*)::bigint AS queued FROM queued
            """,
            [PostgresValue(event), PostgresValue(endpoint), PostgresValue(account)] + AuditStore.parameters(audit)
        )
        return try (rows.first?.decode(Int64.self, "queued") ?? 0) > 0
    }

    /// Queues again, for `endpoint`, the account's events created in
    /// [`fromUnixMs`, `beforeUnixMs`) that the endpoint wants, oldest first, at most `limit`;
    /// `audit` is written in the same statement when the account has the endpoint. Answers
    /// how many were queued (nil: no such endpoint, nothing written).
    public func resend(
        createdFromUnixMs fromUnixMs: Int64, beforeUnixMs: Int64, endpoint: String, account: String, limit: Int, audit: AuditEntry
    ) async throws(StoreError) -> Int? {
        let rows = try await client.query(
            """
            WITH endpoint AS (
                SELECT id, enabled_events FROM webhook_endpoints WHERE id = $1 AND account_id = $2
            ), queued AS (
                INSERT INTO webhook_deliveries (endpoint_id, event_seq, event_id, reader_id)
                SELECT w.id, e.seq, e.id, e.reader_id
                FROM endpoint w JOIN LATERAL (
                    SELECT seq, id, reader_id FROM events
                    WHERE account_id = $2
                      AND created >= timestamptz 'epoch' + $3::bigint * interval '1 millisecond'
                      AND created < timestamptz 'epoch' + $4::bigint * interval '1 millisecond'
                      AND ('*' = ANY (w.enabled_events) OR type = ANY (w.enabled_events))
                    ORDER BY seq LIMIT $5
                ) e ON true
                RETURNING id
            ), audited AS (
                \(AuditStore.insert(from: "endpoint", parametersFrom: 6))
            )
            SELECT (SELECT count(*) FROM endpoint)::bigint AS found, (SELECT count(*) FROM queued)::bigint AS queued
            """,
            [PostgresValue(endpoint), PostgresValue(account), PostgresValue(fromUnixMs), PostgresValue(beforeUnixMs), PostgresValue(limit)]
                + AuditStore.parameters(audit)
        )
        guard let row = rows.first, try row.decode(Int64.self, "found") > 0 else { return nil }
        return Int(try row.decode(Int64.self, "queued"))
    }

    static func endpoint(_ row: PostgresRow) throws(StoreError) -> WebhookEndpoint {
        let reason = try row.decode(String?.self, "disabled_reason")
        return WebhookEndpoint(
            id: try row.decode(String.self, "id"),
            accountID: try row.decode(String.self, "account_id"),
            url: try row.decode(String.self, "url"),
            description: try row.decode(String.self, "description"),
            enabledEvents: try row.decode(String.self, "enabled_events").split(separator: " ").map(String.init),
            disabledReason: reason.map { WebhookEndpoint.DisabledReason(rawValue: $0) ?? .requested },
            createdUnixMs: try row.decode(Int64.self, "created_ms"),
            failingSinceUnixMs: try row.decode(Int64?.self, "failing_ms")
        )
    }
}
