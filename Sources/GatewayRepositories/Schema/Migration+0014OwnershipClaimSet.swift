import GatewayCore
import GatewayPostgres

extension Migration {
    /// Claims on distinct readers decided together, as one set: `ownership_claim_set(...)`, the
    /// rules of `ownership_claim` (migration 0002) written once over all of a batch's claims,
    /// where `ownership_claim_batch` ran that function once per claim in a loop (PostgreSQL's
    /// CPU per claim a quarter higher: 85 against 68 µs in batches of four, pgbench at 10,000
    /// readers). Used by `OwnershipStatements.claimBatch`; a lone claim keeps `ownership_claim`,
    /// cheaper for one (120 against 157 µs).
    ///
    /// - A reader may appear once per call (a second claim would be decided against the same
    ///   row as the first): the function refuses such a call. `OwnershipClaimBatcher` sends a
    ///   reader's later claim in a later call.
    /// - Each claimed reader's ownership row is locked in reader order (so two calls never wait
    ///   on each other in a cycle), `FOR UPDATE` in a lateral subquery: under READ COMMITTED a
    ///   claim that waited decides on the row as its predecessor committed it.
    /// - `plan_cache_mode = force_generic_plan` for the function's own statement: planned for the
    ///   arrays given, a batch of a few claims looks cheaper than the generic plan (estimated at
    ///   10), so the statement was planned afresh on every call (about 60 µs of PostgreSQL's CPU
    ///   per connect in batches of four). The generic plan reads every table by key
    ///   (`OwnershipClaimBatchPlanTests` counts the scans).
    static let v0014OwnershipClaimSet = Migration(
        version: 14,
        name: "ownership: claims on distinct readers decided as one set",
        compatibleFrom: GatewayVersion(0, 1, 0),
        statements: [
            """
            CREATE FUNCTION ownership_claim_set(
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
                    INSERT INTO ownership_history (reader_id, from_session_id, from_lane_label, to_session_id, to_lane_label, generation, reason)
                    SELECT c.reader_id, c.session_id, c.lane_label, k.session_id, k.lane_label,
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
