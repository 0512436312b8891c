import GatewayCore
import GatewayPostgres

extension Migration {
    /// A claim batch decides its ownership notices in its own statement, without a trigger call
    /// per claim.
    ///
    /// `reader_ownership_notify` (0006, 0026) cost a batched claim a PL/pgSQL call per claim
    /// that took its reader, with a query of its own for the old and the new owner's replicas
    /// (`make bench-claim-writes CLAIM_WRITE_CALLGRIND=1`: 756,000 instructions a claim before
    /// this migration, 683,000 after). The batch already reads both sessions of each claim for
    /// its history row, so it can tell the same thing from the same rows:
    ///
    /// - `ownership_claim_set`: the same signature and rules; each claim's two sessions are read
    ///   once (their POS devices for the history row, their replicas for the notice), and the
    ///   update's `RETURNING` sends the notice of each claim that another replica must hear, with
    ///   the payload and rule of the trigger (silent when the reader's link is held by the new
    ///   owner's replica, which also held the previous owner, or there was none). While its
    ///   statement runs it sets `reader_gateway.claim_set_notices` to `sent` for its transaction
    ///   (`set_config(..., true)`) and clears it again before it returns (the function's `SET`
    ///   clause does not restore it; an error rolls it back with the transaction or savepoint).
    /// - the trigger `reader_ownership_notify`: the same function and columns, its `WHEN` also
    ///   requiring that setting not be `sent`, so the claim set's updates queue no trigger call.
    ///   Every other writer of `reader_ownership` (releases, links, expiry, the single claim
    ///   `ownership_claim`, and all of 0.1.0's statements) leaves it unset and is announced by
    ///   the trigger as before.
    ///
    /// An expand step with floor 0.1.0: the function and the trigger are replaced in place
    /// (`CREATE OR REPLACE`), nothing is dropped or renamed; a 0.1.0 replica calling
    /// `ownership_claim_set` gets the same answers and notices.
    static let v0027ClaimNoticesPerStatement = Migration(
        version: 27,
        name: "ownership: a claim batch sends its notices from its own statement",
        compatibleFrom: GatewayVersion(0, 1, 0),
        statements: [
            """
            CREATE OR REPLACE TRIGGER reader_ownership_notify
                AFTER UPDATE ON reader_ownership
                FOR EACH ROW WHEN (
                    (OLD.generation IS DISTINCT FROM NEW.generation
                     OR OLD.session_id IS DISTINCT FROM NEW.session_id
                     OR OLD.link_epoch IS DISTINCT FROM NEW.link_epoch
                     OR OLD.link_node IS DISTINCT FROM NEW.link_node)
                    AND current_setting('reader_gateway.claim_set_notices', true) IS DISTINCT FROM 'sent'
                )
                EXECUTE FUNCTION reader_ownership_notify()
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
                PERFORM set_config('reader_gateway.claim_set_notices', 'sent', true);
                RETURN QUERY
                WITH claims AS (
                    SELECT * FROM unnest(p_readers, p_sessions, p_lanes, p_fail_if_in_use, p_reader_discoveries, p_latest_discoveries)
                        WITH ORDINALITY AS u (reader_id, session_id, lane_label, fail_if_in_use, reader_discovery, latest_discovery, claim_index)
                ), current_owner AS (
                    SELECT k.claim_index, o.reader_id, o.session_id, o.lane_label, o.generation, o.command, o.link_node,
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
                ), decided AS (
                    SELECT c.*, k.session_id AS to_session_id, k.lane_label AS to_lane_label,
                           fs.pos_device_id AS from_pos_device_id, fs.node_id AS from_node,
                           ts.pos_device_id AS to_pos_device_id, ts.node_id AS to_node
                    FROM current_owner c
                    JOIN claims k ON k.claim_index = c.claim_index
                    LEFT JOIN LATERAL (SELECT s.pos_device_id, s.node_id FROM sdk_sessions s WHERE s.id = c.session_id OFFSET 0) fs ON true
                    LEFT JOIN LATERAL (SELECT s.pos_device_id, s.node_id FROM sdk_sessions s WHERE s.id = k.session_id OFFSET 0) ts ON true
                    WHERE c.outcome IN ('connected', 'replaced', 'refused_busy')
                ), granted AS (
                    UPDATE reader_ownership o
                    SET session_id = d.to_session_id, lane_label = d.to_lane_label, generation = greatest(o.generation + 1, generation_floor),
                        since = now(), command = NULL, command_session_id = NULL
                    FROM decided d
                    WHERE o.reader_id = d.reader_id AND d.outcome IN ('connected', 'replaced')
                    RETURNING d.claim_index, o.generation,
                        CASE WHEN o.link_node IS NOT NULL AND d.to_node = o.link_node AND (d.session_id IS NULL OR d.from_node = o.link_node)
                             THEN NULL
                             ELSE pg_notify(
                                 'reader_gateway_ownership',
                                 o.reader_id || ' ' || o.generation || ' ' || o.session_id || ' ' || o.link_epoch || ' ' || coalesce(o.link_node, '-'))
                        END AS announced
                ), recorded AS (
                    INSERT INTO ownership_history (
                        reader_id, from_session_id, from_lane_label, from_pos_device_id,
                        to_session_id, to_lane_label, to_pos_device_id, generation, reason
                    )
                    SELECT d.reader_id, d.session_id, d.lane_label, d.from_pos_device_id,
                           d.to_session_id, d.to_lane_label, d.to_pos_device_id,
                           coalesce(g.generation, d.generation), d.outcome::ownership_reason
                    FROM decided d
                    LEFT JOIN granted g ON g.claim_index = d.claim_index
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
                PERFORM set_config('reader_gateway.claim_set_notices', '', true);
            END $$
            """,
        ]
    )
}
