import GatewayCore
import GatewayPostgres

extension Migration {
    /// Webhook endpoints and their delivery queue: every event of the log reaches the account's
    /// endpoints that want it, signed, retried, in order per reader (PROTOCOL.md section 23).
    ///
    /// - `webhook_endpoints`: `id` is `we_` + 24 base-62 characters; `url` an `https://` URL;
    ///   `enabled_events` the event types it wants, `{*}` for all; `status` `enabled` or
    ///   `disabled`, with `disabled_reason` (`requested`, or `failing` when its deliveries kept
    ///   failing for the whole retry window); `secret` the `whsec_` signing secret, kept as
    ///   written because the gateway needs it to sign every delivery (HMAC needs the key, a
    ///   hash would not do): it is shown once, at creation, and never answered again;
    ///   `failing_since` the first failure since the last success (NULL while healthy).
    /// - `webhook_deliveries`: one row per (event, endpoint), added by the `AFTER INSERT`
    ///   trigger on `events` in the transaction that writes the event, so every writer of
    ///   events (this release's triggers and statements, and a 0.1.0 replica's, whose changes
    ///   fire the same triggers) fills the queue, and no event is without its deliveries.
    ///   `state` `pending`, `delivered` or `failed`; `next_attempt_at` when it is due;
    ///   `leased_until` and `leased_by` the replica delivering it (claimed with
    ///   `FOR UPDATE SKIP LOCKED`; an expired lease is claimable again, so a replica that dies
    ///   mid-delivery only delays it). A resend adds a row for the same event. Deleting an
    ///   event (retention) deletes its deliveries with it (`ON DELETE CASCADE`), so no pending
    ///   delivery is left without its event to hold a reader's later events back.
    ///
    /// An expand step with floor 0.1.0: tables and a trigger are added; 0.1.0 never reads the
    /// tables, and its writes of events (through the triggers of 0021) fill the queue.
    static let v0025Webhooks = Migration(
        version: 25,
        name: "webhook endpoints and the delivery queue, filled with each event",
        compatibleFrom: GatewayVersion(0, 1, 0),
        statements: [
            """
            CREATE TABLE webhook_endpoints (
                id              text PRIMARY KEY,
                account_id      text NOT NULL,
                url             text NOT NULL,
                description     text NOT NULL DEFAULT '',
                enabled_events  text[] NOT NULL,
                status          text NOT NULL DEFAULT 'enabled' CHECK (status IN ('enabled', 'disabled')),
                disabled_reason text,
                secret          text NOT NULL,
                failing_since   timestamptz,
                created         timestamptz NOT NULL DEFAULT clock_timestamp(),
                updated         timestamptz NOT NULL DEFAULT clock_timestamp()
            )
            """,
            "CREATE INDEX webhook_endpoints_account_idx ON webhook_endpoints (account_id, created)",
            """
            CREATE TABLE webhook_deliveries (
                id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                endpoint_id     text NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
                event_seq       bigint NOT NULL REFERENCES events (seq) ON DELETE CASCADE,
                event_id        text NOT NULL,
                reader_id       text,
                state           text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'delivered', 'failed')),
                attempts        integer NOT NULL DEFAULT 0,
                created         timestamptz NOT NULL DEFAULT clock_timestamp(),
                next_attempt_at timestamptz NOT NULL DEFAULT clock_timestamp(),
                leased_until    timestamptz,
                leased_by       text,
                last_status     integer,
                last_error      text,
                finished_at     timestamptz
            )
            """,
            "CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (endpoint_id, next_attempt_at) WHERE state = 'pending'",
            "CREATE INDEX webhook_deliveries_reader_idx ON webhook_deliveries (endpoint_id, reader_id, event_seq) WHERE state = 'pending'",
            "CREATE INDEX webhook_deliveries_event_idx ON webhook_deliveries (event_id)",
            "CREATE INDEX webhook_deliveries_event_seq_idx ON webhook_deliveries (event_seq)",
            """
            CREATE FUNCTION events_webhook_deliveries() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                INSERT INTO webhook_deliveries (endpoint_id, event_seq, event_id, reader_id)
                SELECT e.id, NEW.seq, NEW.id, NEW.reader_id
                FROM webhook_endpoints e
                WHERE e.account_id = NEW.account_id AND e.status = 'enabled'
                  AND ('*' = ANY (e.enabled_events) OR NEW.type = ANY (e.enabled_events));
                RETURN NULL;
            END $$
            """,
            """
            CREATE TRIGGER events_webhook_deliveries AFTER INSERT ON events
                FOR EACH ROW EXECUTE FUNCTION events_webhook_deliveries()
            """,
        ]
    )
}
