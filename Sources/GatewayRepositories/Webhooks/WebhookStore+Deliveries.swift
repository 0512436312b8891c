import Foundation
import GatewayPostgres

/// The delivery queue (`webhook_deliveries`): claims under a lease with
/// `FOR UPDATE SKIP LOCKED`, and the outcome of each attempt.
///
/// A delivery is claimable when it is pending, due, unleased (or its lease expired: the
/// replica holding it died or hung), its endpoint is enabled, and no earlier delivery of the
/// same reader to the same endpoint is still pending (it is its reader's head): a reader's
/// events go to an endpoint one at a time, in the order they were written.
extension WebhookStore {
    /// Endpoints with a due, unleased delivery, leaving out `excluded` (the ones this replica
    /// has no room for): one probe of the queue's index per enabled endpoint, however long its
    /// backlog.
    public func endpointsWithDueDeliveries(excluding excluded: [String]) async throws(StoreError) -> [String] {
        let rows = try await client.query(
            """
            SELECT w.id AS endpoint_id FROM webhook_endpoints w
            WHERE w.status = 'enabled' AND NOT (w.id = ANY (string_to_array($1, ' ')))
              AND EXISTS (
                  SELECT 1 FROM webhook_deliveries d
                  WHERE d.endpoint_id = w.id AND d.state = 'pending' AND d.next_attempt_at <= clock_timestamp()
                    AND (d.leased_until IS NULL OR d.leased_until < clock_timestamp())
              )
            ORDER BY w.id
            """,
            [PostgresValue(excluded.joined(separator: " "))]
        )
        var ids: [String] = []
        for row in rows { ids.append(try row.decode(String.self, "endpoint_id")) }
        return ids
    }

    /// Claims up to `limit` of `endpoint`'s claimable deliveries for `replica`, leased for
    /// `leaseMs`, oldest event first; each claim counts as an attempt.
    ///
    /// The candidates are each reader's oldest pending delivery (its head), found by a skip
    /// scan of the queue's reader index (one probe per reader with pending deliveries), and the
    /// deliveries of no reader: a claim costs what the number of readers costs, not what the
    /// backlog does. (Judging every pending row against the rows before it read the whole
    /// backlog whenever fewer heads were free than the claim had room for, so a backlog made
    /// every claim slower and delivery fell further behind.)
    public func claim(endpoint: String, limit: Int, leaseMs: Int64, replica: String) async throws(StoreError) -> [WebhookDelivery] {
        let rows = try await client.query(
            """
            WITH RECURSIVE heads AS (
                (SELECT d.reader_id, d.id FROM webhook_deliveries d
                 WHERE d.endpoint_id = $1 AND d.state = 'pending' AND d.reader_id IS NOT NULL
                 ORDER BY d.reader_id, d.event_seq, d.id LIMIT 1)
                UNION ALL
                SELECT following.reader_id, following.id FROM heads h CROSS JOIN LATERAL (
                    SELECT d.reader_id, d.id FROM webhook_deliveries d
                    WHERE d.endpoint_id = $1 AND d.state = 'pending' AND d.reader_id > h.reader_id
                    ORDER BY d.reader_id, d.event_seq, d.id LIMIT 1
                ) following
            ), candidates AS (
                SELECT id FROM heads
                UNION ALL
                SELECT d.id FROM webhook_deliveries d WHERE d.endpoint_id = $1 AND d.state = 'pending' AND d.reader_id IS NULL
            ), due AS (
                SELECT d.id FROM webhook_deliveries d JOIN candidates c ON c.id = d.id
                WHERE d.state = 'pending' AND d.next_attempt_at <= clock_timestamp()
                  AND (d.leased_until IS NULL OR d.leased_until < clock_timestamp())
                  AND EXISTS (SELECT 1 FROM webhook_endpoints w WHERE w.id = d.endpoint_id AND w.status = 'enabled')
                ORDER BY d.event_seq, d.id
                LIMIT $2
                FOR UPDATE OF d SKIP LOCKED
            ), claimed AS (
                UPDATE webhook_deliveries d
                SET leased_until = clock_timestamp() + $3::bigint * interval '1 millisecond', leased_by = $4, attempts = d.attempts + 1
                FROM due WHERE d.id = due.id
                RETURNING d.id, d.event_id, d.attempts, d.created, d.endpoint_id
            )
            SELECT c.id AS delivery_id, c.attempts, floor(extract(epoch FROM c.created) * 1000)::bigint AS queued_ms, w.url, w.secret,
                   ev.seq, ev.id, ev.account_id, ev.type, ev.reader_id, ev.location_id,
                   floor(extract(epoch FROM ev.created) * 1000)::bigint AS created_ms, ev.object::text AS object
            FROM claimed c JOIN events ev ON ev.id = c.event_id JOIN webhook_endpoints w ON w.id = c.endpoint_id
            ORDER BY ev.seq, c.id
            """,
            [PostgresValue(endpoint), PostgresValue(limit), PostgresValue(leaseMs), PostgresValue(replica)]
        )
        var deliveries: [WebhookDelivery] = []
        for row in rows {
            deliveries.append(
                WebhookDelivery(
                    id: try row.decode(Int64.self, "delivery_id"), endpointID: endpoint, url: try row.decode(String.self, "url"),
                    secret: try row.decode(String.self, "secret"), event: try EventStore.record(row),
                    attempt: Int(try row.decode(Int64.self, "attempts")), queuedUnixMs: try row.decode(Int64.self, "queued_ms")
                )
            )
        }
        return deliveries
    }

    /// `replica` gives back a delivery it claimed and did not finish (it is shutting down): the
    /// lease ends now and the claim no longer counts as an attempt, so any replica sends it at
    /// once, with its retry schedule as it was. A delivery `replica` no longer holds (its lease
    /// expired and another replica claimed it, or it finished) is left alone; false then.
    @discardableResult
    public func handBack(_ delivery: Int64, replica: String) async throws(StoreError) -> Bool {
        let rows = try await client.query(
            """
            UPDATE webhook_deliveries SET leased_until = NULL, leased_by = NULL, attempts = greatest(attempts - 1, 0)
            WHERE id = $1 AND leased_by = $2 AND state = 'pending' AND leased_until >= clock_timestamp()
            RETURNING id
            """,
            [PostgresValue(delivery), PostgresValue(replica)]
        )
        return !rows.isEmpty
    }

    /// The endpoint answered 2xx: the delivery is done and the endpoint's failing streak ends.
    public func delivered(_ delivery: Int64, status: Int) async throws(StoreError) {
        try await client.execute(
            """
            WITH done AS (
                UPDATE webhook_deliveries
                SET state = 'delivered', leased_until = NULL, last_status = $2, last_error = NULL, finished_at = clock_timestamp()
                WHERE id = $1 AND state = 'pending'
                RETURNING endpoint_id
            )
            UPDATE webhook_endpoints SET failing_since = NULL
            WHERE id IN (SELECT endpoint_id FROM done) AND failing_since IS NOT NULL
            """,
            [PostgresValue(delivery), PostgresValue(status)]
        )
    }

    /// An attempt failed (`status` the HTTP status when there was one, `error` a sentence):
    /// the delivery is due again in `retryInMs`; or, when it was queued longer than
    /// `windowMs`, given up; or, when its endpoint has failed for longer than `windowMs`
    /// without a success, the endpoint is disabled with `webhook_endpoint.disabled`, in one
    /// transaction.
    public func failed(_ delivery: Int64, status: Int?, error: String, retryInMs: Int64, windowMs: Int64) async throws -> WebhookFailureOutcome {
        try await client.withTransaction { transaction in
            let rows = try await transaction.query(
                """
                WITH d AS (
                    SELECT id, endpoint_id, created FROM webhook_deliveries WHERE id = $1 AND state = 'pending' FOR UPDATE
                ), w AS (
                    UPDATE webhook_endpoints w SET failing_since = coalesce(w.failing_since, clock_timestamp())
                    FROM d WHERE w.id = d.endpoint_id
                    RETURNING w.id, w.status, w.failing_since
                )
                SELECT w.id AS endpoint_id, w.status,
                       w.failing_since <= clock_timestamp() - $2::bigint * interval '1 millisecond' AS endpoint_expired,
                       d.created <= clock_timestamp() - $2::bigint * interval '1 millisecond' AS delivery_expired
                FROM d JOIN w ON w.id = d.endpoint_id
                """,
                [PostgresValue(delivery), PostgresValue(windowMs)]
            )
            guard let row = rows.first else { return .alreadyFinished }
            let endpoint = try row.decode(String.self, "endpoint_id")
            let common: [PostgresValue?] = [PostgresValue(delivery), status.map { PostgresValue($0) }, PostgresValue(error)]
            if try row.decode(String.self, "status") == "enabled", try row.decode(Bool.self, "endpoint_expired") {
                try await transaction.execute(Self.disableFailing, [PostgresValue(endpoint), PostgresValue(windowMs)])
                try await transaction.execute(
                    """
                    UPDATE webhook_deliveries SET last_status = $2, last_error = $3 WHERE id = $1
                    """,
                    common
                )
                return .endpointDisabled
            }
            if try row.decode(Bool.self, "delivery_expired") {
                try await transaction.execute(
                    """
                    UPDATE webhook_deliveries
                    SET state = 'failed', leased_until = NULL, last_status = $2, last_error = $3, finished_at = clock_timestamp()
                    WHERE id = $1
                    """,
                    common
                )
                return .gaveUp
            }
            try await transaction.execute(
                """
                UPDATE webhook_deliveries
                SET leased_until = NULL, last_status = $2, last_error = $3,
                    next_attempt_at = clock_timestamp() + $4::bigint * interval '1 millisecond'
                WHERE id = $1
                """,
                common + [PostgresValue(retryInMs)]
            )
            return .retrying
        }
    }

    /// `$1` endpoint, `$2` the window (ms): disables it as failing, gives up its pending
    /// deliveries, and writes `webhook_endpoint.disabled` (after the update, so the event is
    /// not queued for the endpoint it disables).
    static let disableFailing = """
        WITH off AS (
            UPDATE webhook_endpoints SET status = 'disabled', disabled_reason = 'failing', updated = clock_timestamp()
            WHERE id = $1 AND status = 'enabled'
            RETURNING id, account_id, url, description, enabled_events, failing_since
        ), given_up AS (
            UPDATE webhook_deliveries
            SET state = 'failed', leased_until = NULL, finished_at = clock_timestamp(),
                last_error = coalesce(last_error, 'the endpoint was disabled')
            WHERE endpoint_id IN (SELECT id FROM off) AND state = 'pending'
        )
        SELECT gateway_event_append(off.account_id, 'webhook_endpoint.disabled', NULL, NULL, jsonb_build_object(
            'object', 'webhook_endpoint', 'id', off.id, 'url', off.url, 'description', off.description,
            'enabled_events', to_jsonb(off.enabled_events), 'status', 'disabled', 'disabled_reason', 'failing',
            'failing_since_unix_ms', floor(extract(epoch FROM off.failing_since) * 1000)::bigint,
            'retry_window_ms', $2::bigint
        ))
        FROM off
        """

    /// Each endpoint's pending, retrying and oldest pending delivery, for the metrics.
    public func queueSummaries() async throws(StoreError) -> [WebhookQueueSummary] {
        let rows = try await client.query(
            """
            SELECT w.id AS endpoint_id,
                   count(d.id) AS pending,
                   count(d.id) FILTER (WHERE d.attempts > 0 AND (d.leased_until IS NULL OR d.leased_until < clock_timestamp())) AS retrying,
                   coalesce(extract(epoch FROM clock_timestamp() - min(d.created)), 0)::float8 AS oldest
            FROM webhook_endpoints w LEFT JOIN webhook_deliveries d ON d.endpoint_id = w.id AND d.state = 'pending'
            GROUP BY w.id
            ORDER BY w.id
            """
        )
        var summaries: [WebhookQueueSummary] = []
        for row in rows {
            summaries.append(
                WebhookQueueSummary(
                    endpointID: try row.decode(String.self, "endpoint_id"), pending: Int(try row.decode(Int64.self, "pending")),
                    retrying: Int(try row.decode(Int64.self, "retrying")), oldestPendingSeconds: try row.decode(Double.self, "oldest")
                )
            )
        }
        return summaries
    }
}
