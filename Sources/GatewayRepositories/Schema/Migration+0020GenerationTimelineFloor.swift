import GatewayCore
import GatewayPostgres

extension Migration {
    /// Generations above every one an earlier timeline handed out.
    ///
    /// Every promotion of a standby (and every point-in-time restore) starts a new PostgreSQL
    /// timeline. An asynchronous standby promoted without the old primary's last transactions
    /// shows a reader at a generation the old primary had already moved past: counting on from
    /// the row would hand out a generation again, to a session that never held it, before the
    /// replica that knows of the lost one has compared its rows (`ClusterStore.repairRollback`).
    /// So every statement that moves a generation takes at least the floor of the timeline it
    /// runs on, `(timeline - 1) << 40`: timeline 1 numbers exactly as before (floor 0), and a
    /// promoted server's first change of a reader jumps above everything its predecessor can
    /// have handed out (unless one reader changed owner 2^40 times on one timeline). Timelines
    /// up to 2^23 fit a bigint.
    ///
    /// - `ownership_generation_floor(timeline)`: the floor of a timeline (immutable);
    ///   `ownership_generation_floor()`: the floor of the timeline this primary writes, the
    ///   first 8 hex digits of `pg_walfile_name(pg_current_wal_lsn())`, exact from the
    ///   promotion on (the timeline in `pg_control_checkpoint()` lags until the
    ///   end-of-recovery checkpoint). PL/pgSQL, so the planner does not inline it: a statement
    ///   sent unnamed (release, expiry, loss) is planned on every call, and inlining SQL
    ///   functions there cost more planning than the call (pgbench, simple protocol); the
    ///   call reads no table and evaluates one cached expression per changed row. It runs only
    ///   on a primary (`pg_walfile_name` refuses during recovery), as every write does.
    /// - `ownership_claim` (0016) and `ownership_claim_set` (0016) are the same functions with
    ///   `greatest(o.generation + 1, ownership_generation_floor())`, same signatures, so a
    ///   0.1.0 binary's claims take the floor too; `ownership_claim_batch` calls
    ///   `ownership_claim`. The release, expiry, loss and repair statements
    ///   (`OwnershipStatements`, `ClusterStore.repairRollback`) take it from this release on.
    /// - The last statement evaluates the floor once: a server whose WAL functions are not
    ///   available fails the migration, naming the function, instead of every claim after it.
    ///
    /// An expand step with floor 0.1.0: nothing is dropped or renamed, and a 0.1.0 binary's
    /// release or expiry moving a generation by one from below the floor hands out nothing
    /// (the reader has no owner then); its next claim takes the floor.
    static let v0020GenerationTimelineFloor = Migration(
        version: 20,
        name: "ownership: generations above every earlier timeline's",
        compatibleFrom: GatewayVersion(0, 1, 0),
        statements: [
            """
            CREATE FUNCTION ownership_generation_floor(p_timeline bigint) RETURNS bigint
                LANGUAGE sql IMMUTABLE PARALLEL SAFE
                AS $$ SELECT (p_timeline - 1) << 40 $$
            """,
            """
            CREATE FUNCTION ownership_generation_floor() RETURNS bigint
                LANGUAGE plpgsql VOLATILE PARALLEL SAFE AS $$
            BEGIN
                RETURN ownership_generation_floor(('x' || substr(pg_walfile_name(pg_current_wal_lsn()), 1, 8))::bit(32)::bigint);
            END $$
            """,
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
                    SET session_id = p_session, lane_label = p_lane, generation = greatest(o.generation + 1, ownership_generation_floor()),
                        since = now(), command = NULL, command_session_id = NULL
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
                    SET session_id = k.session_id, lane_label = k.lane_label, generation = greatest(o.generation + 1, ownership_generation_floor()),
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
            "SELECT ownership_generation_floor()",
        ]
    )
}
