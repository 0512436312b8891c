import GatewayCore
import GatewayPostgres

extension Migration {
    /// A batch of claims writes its events once per statement, not once per claim.
    ///
    /// A batched connect (`ownership_claim_set`, 0020) ran three PL/pgSQL triggers per claim that
    /// took its reader: `ownership_history_events` (0021) inserting the claim's event, that
    /// insert's `events_webhook_deliveries` (0025) looking for endpoints, and
    /// `reader_ownership_notify` (0006) reading the old and the new owner's session one at a
    /// time. Each is a function call and statements of its own, per row.
    ///
    /// - `ownership_history_events` and `events_webhook_deliveries` become statement triggers
    ///   over their statement's new rows (transition tables `added`), same names, same rows
    ///   written: a batch's events are one INSERT (in history order, so `events.seq` follows
    ///   `ownership_history.id` as before; each reader's row looked up by key), and its
    ///   deliveries one INSERT (in event order, then endpoint). A refused connect still writes
    ///   no event. Every writer of history and events (this release's statements and 0.1.0's)
    ///   fires them alike.
    /// - `reader_ownership_notify` reads both sessions in one statement; it stays a row trigger
    ///   whose `WHEN` filters out the updates that change no owner or link (a command's start
    ///   and end), which a statement trigger would run for.
    /// - `ownership_claim_set`: the same function (same signature and rules), evaluating the
    ///   timeline's generation floor once per call instead of once per claim that takes its
    ///   reader (the floor is the same for the whole transaction).
    ///
    /// An expand step with floor 0.1.0: functions and triggers are replaced in place
    /// (`CREATE OR REPLACE`), nothing is dropped or renamed.
    static let v0026ClaimWritesPerStatement = Migration(
        version: 26,
        name: "ownership: a claim batch's events and deliveries written once per statement",
        compatibleFrom: GatewayVersion(0, 1, 0),
        statements: [
            """
            CREATE OR REPLACE FUNCTION ownership_history_events() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                -- One INSERT per statement of ownership_history; each reader's row by key.
                INSERT INTO events (id, account_id, type, reader_id, location_id, object)
                SELECT 'evt_' || replace(gen_random_uuid()::text, '-', ''), r.account_id,
                       CASE h.reason::text
                           WHEN 'connected' THEN 'reader.ownership.connected'
                           WHEN 'replaced' THEN 'reader.ownership.replaced'
                           WHEN 'reader_lost' THEN 'reader.ownership.lost'
                           WHEN 'store_rolled_back' THEN 'reader.ownership.lost'
                           ELSE 'reader.ownership.released'
                       END,
                       r.id, r.location_id,
                       jsonb_build_object(
                           'object', 'reader_ownership_change',
                           'reason', h.reason::text,
                           'generation', h.generation,
                           'owner', CASE WHEN h.to_session_id IS NULL THEN NULL ELSE jsonb_build_object(
                               'session_id', h.to_session_id, 'lane_label', coalesce(h.to_lane_label, ''),
                               'pos_device_id', coalesce(h.to_pos_device_id, '')
                           ) END,
                           'previous_owner', CASE WHEN h.from_session_id IS NULL THEN NULL ELSE jsonb_build_object(
                               'session_id', h.from_session_id, 'lane_label', coalesce(h.from_lane_label, ''),
                               'pos_device_id', coalesce(h.from_pos_device_id, '')
                           ) END,
                           'reader', jsonb_build_object(
                               'object', 'reader', 'id', r.id, 'serial_number', r.serial_number, 'label', coalesce(r.label, ''),
                               'device_type', r.device_type, 'software_version', coalesce(r.software_version, ''),
                               'location', r.location_id, 'status', r.status
                           )
                       )
                FROM added h
                CROSS JOIN LATERAL (SELECT * FROM readers r WHERE r.id = h.reader_id OFFSET 0) r
                WHERE h.reason <> 'refused_busy'
                ORDER BY h.id;
                RETURN NULL;
            END $$
            """,
            """
            CREATE OR REPLACE TRIGGER ownership_history_events AFTER INSERT ON ownership_history
                REFERENCING NEW TABLE AS added
                FOR EACH STATEMENT EXECUTE FUNCTION ownership_history_events()
            """,
            """
            CREATE OR REPLACE FUNCTION events_webhook_deliveries() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                -- One INSERT per statement of events, usually none: most accounts have no endpoint.
                INSERT INTO webhook_deliveries (endpoint_id, event_seq, event_id, reader_id)
                SELECT e.id, n.seq, n.id, n.reader_id
                FROM added n
                JOIN webhook_endpoints e ON e.account_id = n.account_id
                WHERE e.status = 'enabled' AND ('*' = ANY (e.enabled_events) OR n.type = ANY (e.enabled_events))
                ORDER BY n.seq, e.created, e.id;
                RETURN NULL;
            END $$
            """,
            """
            CREATE OR REPLACE TRIGGER events_webhook_deliveries AFTER INSERT ON events
                REFERENCING NEW TABLE AS added
                FOR EACH STATEMENT EXECUTE FUNCTION events_webhook_deliveries()
            """,
            """
            CREATE OR REPLACE FUNCTION reader_ownership_notify() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                -- Silent when the new owner's replica holds the link and held the previous owner
                -- (or there was none): that replica runs the claim's actions itself (0006).
                IF NEW.session_id IS NOT NULL AND NEW.link_node IS NOT NULL
                   AND OLD.link_epoch = NEW.link_epoch AND OLD.link_node IS NOT DISTINCT FROM NEW.link_node THEN
                    IF OLD.session_id IS NULL OR OLD.session_id = NEW.session_id THEN
                        IF EXISTS (SELECT 1 FROM sdk_sessions s WHERE s.id = NEW.session_id AND s.node_id = NEW.link_node) THEN
                            RETURN NULL;
                        END IF;
                    ELSIF (SELECT count(*) FROM sdk_sessions s
                           WHERE s.id IN (NEW.session_id, OLD.session_id) AND s.node_id = NEW.link_node) = 2 THEN
                        RETURN NULL;
                    END IF;
                END IF;
                PERFORM pg_notify(
                    'reader_gateway_ownership',
                    NEW.reader_id || ' ' || NEW.generation || ' ' || coalesce(NEW.session_id, '-') || ' '
                        || NEW.link_epoch || ' ' || coalesce(NEW.link_node, '-')
                );
                RETURN NULL;
            END $$
            """,
            """
            CREATE OR REPLACE FUNCTION ownership_claim_set(
                p_readers text[], p_sessions text[], p_lanes text[], p_fail_if_in_use boolean[],
                p_reader_discoveries bigint[], p_latest_discoveries bigint[]
            ) RETURNS TABLE (
                claim_index integer, outcome text, generation bigint, previous_generation bigint,
                owner_session_id text, owner_lane_label text, command text
            ) LANGUAGE plpgsql ROWS 8 SET plan_cache_mode = force_generic_plan AS $$
            #variable_conflict use_column
            DECLARE
                generation_floor bigint := ownership_generation_floor();
            BEGIN
                IF (SELECT count(DISTINCT r.id) FROM unnest(p_readers) AS r (id)) <> cardinality(p_readers) THEN
                    RAISE EXCEPTION 'ownership_claim_set: a reader appears twice; send its later claim in a later call'
                        USING ERRCODE = 'invalid_parameter_value';
                END IF;
                RETURN QUERY
                WITH claims AS (
                    SELECT * FROM unnest(p_readers, p_sessions, p_lanes, p_fail_if_in_use, p_reader_discoveries, p_latest_discoveries)
                        WITH ORDINALITY AS u (reader_id, session_id, lane_label, fail_if_in_use, reader_discovery, latest_discovery, claim_index)
                ), current_owner AS (
                    SELECT k.claim_index, o.reader_id, o.session_id, o.lane_label, o.generation, o.command,
                           CASE
                               WHEN NOT o.online THEN 'reader_offline'
                               WHEN o.session_id = k.session_id THEN 'already_owner'
                               WHEN k.fail_if_in_use AND o.command IS NOT NULL AND o.command_session_id <> k.session_id THEN 'refused_busy'
                               WHEN o.session_id IS NULL THEN 'connected'
                               ELSE 'replaced'
                           END AS outcome
                    FROM (SELECT * FROM claims WHERE reader_discovery >= latest_discovery ORDER BY reader_id) k
                    CROSS JOIN LATERAL (
                        SELECT * FROM reader_ownership o WHERE o.reader_id = k.reader_id FOR UPDATE
                    ) o
                ), granted AS (
                    UPDATE reader_ownership o
                    SET session_id = k.session_id, lane_label = k.lane_label, generation = greatest(o.generation + 1, generation_floor),
                        since = now(), command = NULL, command_session_id = NULL
                    FROM current_owner c JOIN claims k ON k.claim_index = c.claim_index
                    WHERE o.reader_id = c.reader_id AND c.outcome IN ('connected', 'replaced')
                    RETURNING c.claim_index, o.generation
                ), recorded AS (
                    INSERT INTO ownership_history (
                        reader_id, from_session_id, from_lane_label, from_pos_device_id,
                        to_session_id, to_lane_label, to_pos_device_id, generation, reason
                    )
                    SELECT c.reader_id, c.session_id, c.lane_label, (SELECT s.pos_device_id FROM sdk_sessions s WHERE s.id = c.session_id),
                           k.session_id, k.lane_label, (SELECT s.pos_device_id FROM sdk_sessions s WHERE s.id = k.session_id),
                           coalesce(g.generation, c.generation), c.outcome::ownership_reason
                    FROM current_owner c
                    JOIN claims k ON k.claim_index = c.claim_index
                    LEFT JOIN granted g ON g.claim_index = c.claim_index
                    WHERE c.outcome IN ('connected', 'replaced', 'refused_busy')
                )
                SELECT k.claim_index::integer,
                       coalesce(
                           c.outcome,
                           CASE
                               WHEN NOT EXISTS (SELECT 1 FROM readers r WHERE r.id = k.reader_id) THEN 'unknown_reader'
                               WHEN k.reader_discovery < k.latest_discovery THEN 'stale_discovery'
                               ELSE 'reader_offline'
                           END
                       ),
                       coalesce(g.generation, c.generation),
                       c.generation,
                       c.session_id,
                       c.lane_label,
                       c.command
                FROM claims k
                LEFT JOIN current_owner c ON c.claim_index = k.claim_index
                LEFT JOIN granted g ON g.claim_index = k.claim_index;
            END $$
            """,
        ]
    )
}
