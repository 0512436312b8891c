import GatewayCore
import GatewayPostgres

extension Migration {
    /// The ownership history keeps the POS device of each session it names.
    ///
    /// A history row named its sessions by id and lane label, and the admin surface found their
    /// POS devices in the sessions this replica held in memory: a row named a POS device only
    /// while its session was open here, and showed none once it closed. A history row records
    /// what was true when it was written, so it now carries `from_pos_device_id` and
    /// `to_pos_device_id`, read from the sessions' rows by the statement that writes it (the
    /// claim functions below and every release, expiry and loss in `OwnershipStatements`),
    /// and is read back from there.
    ///
    /// - The rows written before are filled from the sessions' rows that still exist (a
    ///   session's POS device never changes), the append-only trigger set aside for that one
    ///   statement of this migration's transaction.
    /// - `ownership_claim` (migration 0002) and `ownership_claim_set` (0014) are the same
    ///   functions writing the two columns; `ownership_claim_batch` calls `ownership_claim`.
    static let v0016HistoryPosDevices = Migration(
        version: 16,
        name: "ownership history: the POS device of each session named",
        compatibleFrom: GatewayVersion(0, 1, 0),
        statements: [
            "ALTER TABLE ownership_history ADD COLUMN from_pos_device_id text, ADD COLUMN to_pos_device_id text",
            "ALTER TABLE ownership_history DISABLE TRIGGER ownership_history_append_only",
            """
            UPDATE ownership_history h
            SET from_pos_device_id = (SELECT s.pos_device_id FROM sdk_sessions s WHERE s.id = h.from_session_id),
                to_pos_device_id = (SELECT s.pos_device_id FROM sdk_sessions s WHERE s.id = h.to_session_id)
            WHERE h.from_session_id IS NOT NULL OR h.to_session_id IS NOT NULL
            """,
            "ALTER TABLE ownership_history ENABLE TRIGGER ownership_history_append_only",
            """
            CREATE OR REPLACE FUNCTION ownership_claim(
                p_reader text, p_session text, p_lane text, p_fail_if_in_use boolean,
                p_reader_discovery bigint, p_latest_discovery bigint
            ) RETURNS TABLE (
                outcome text, generation bigint, previous_generation bigint,
                owner_session_id text, owner_lane_label text, command text
            ) LANGUAGE plpgsql AS $$
            #variable_conflict use_column
            BEGIN
                RETURN QUERY
                WITH current_owner AS (
                    SELECT o.reader_id, o.session_id, o.lane_label, o.generation, o.command,
                           CASE
                               WHEN NOT o.online THEN 'reader_offline'
                               WHEN o.session_id = p_session THEN 'already_owner'
                               WHEN p_fail_if_in_use AND o.command IS NOT NULL AND o.command_session_id <> p_session THEN 'refused_busy'
                               WHEN o.session_id IS NULL THEN 'connected'
                               ELSE 'replaced'
                           END AS outcome
                    FROM reader_ownership o
                    WHERE o.reader_id = p_reader AND p_reader_discovery >= p_latest_discovery
                    FOR UPDATE
                ), granted AS (
                    UPDATE reader_ownership o
                    SET session_id = p_session, lane_label = p_lane, generation = o.generation + 1, since = now(),
                        command = NULL, command_session_id = NULL
                    FROM current_owner c
                    WHERE o.reader_id = c.reader_id AND c.outcome IN ('connected', 'replaced')
                    RETURNING o.generation
                ), recorded AS (
                    INSERT INTO ownership_history (
                        reader_id, from_session_id, from_lane_label, from_pos_device_id,
                        to_session_id, to_lane_label, to_pos_device_id, generation, reason
                    )
                    SELECT c.reader_id, c.session_id, c.lane_label, (SELECT s.pos_device_id FROM sdk_sessions s WHERE s.id = c.session_id),
                           p_session, p_lane, (SELECT s.pos_device_id FROM sdk_sessions s WHERE s.id = p_session),
                           coalesce((SELECT g.generation FROM granted g), c.generation), c.outcome::ownership_reason
                    FROM current_owner c
                    WHERE c.outcome IN ('connected', 'replaced', 'refused_busy')
                )
                SELECT coalesce(
                           c.outcome,
                           CASE
                               WHEN NOT EXISTS (SELECT 1 FROM readers r WHERE r.id = p_reader) THEN 'unknown_reader'
                               WHEN p_reader_discovery < p_latest_discovery THEN 'stale_discovery'
                               ELSE 'reader_offline'
                           END
                       ) AS outcome,
                       coalesce((SELECT g.generation FROM granted g), c.generation) AS generation,
                       c.generation AS previous_generation,
                       c.session_id AS owner_session_id,
                       c.lane_label AS owner_lane_label,
                       c.command
                FROM (VALUES (1)) AS one (x)
                LEFT JOIN current_owner c ON true;
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
                    SET session_id = k.session_id, lane_label = k.lane_label, generation = o.generation + 1, since = now(),
                        command = NULL, command_session_id = NULL
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
