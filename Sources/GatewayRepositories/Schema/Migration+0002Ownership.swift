import GatewayCore
import GatewayPostgres

extension Migration {
    /// Who owns each reader, and the append-only history of every change.
    ///
    /// - `reader_ownership`: one row per reader that ever attached; the owner session and lane,
    ///   `generation` (the fencing token: +1 on every change of owner, never decreasing, enforced
    ///   by a trigger), the transaction command in progress and its session, and the reader's
    ///   link as arbitration sees it (`online`, `link_epoch`).
    /// - `ownership_history`: append-only (a trigger refuses UPDATE, DELETE and TRUNCATE); one
    ///   row per change of owner carrying the new generation (unique per reader), plus one row
    ///   per connect refused because the reader was busy (carrying the unchanged generation).
    ///   It keeps no foreign keys so that it outlives deregistered readers and purged sessions.
    /// - `ownership_claim(...)`: the one-statement claim (see `OwnershipStatements.claim`), and
    ///   `ownership_claim_batch(...)`: several claims in one statement and one commit, in
    ///   reader order (see `OwnershipClaimBatcher`).
    /// - indexes for the admin queries: owner of a reader (primary key), ownership at a location
    ///   or account (0001's readers indexes, then the primary key), history of a reader (primary
    ///   key `(reader_id, id)`), readers owned by a session (partial index, also used by the
    ///   lease sweep), sessions of an account (0001's open-sessions index).
    static let v0002Ownership = Migration(
        version: 2,
        name: "reader ownership and ownership history",
        compatibleFrom: GatewayVersion(0, 1, 0),
        statements: [
            """
            CREATE TYPE ownership_reason AS ENUM (
                'connected', 'replaced', 'refused_busy', 'released', 'session_expired', 'reader_lost', 'admin_released'
            )
            """,
            """
            CREATE TABLE reader_ownership (
                reader_id          text PRIMARY KEY REFERENCES readers (id) ON DELETE CASCADE,
                session_id         text REFERENCES sdk_sessions (id),
                lane_label         text,
                generation         bigint NOT NULL DEFAULT 0 CHECK (generation >= 0),
                since              timestamptz,
                command            text CHECK (command IN ('collect_payment_method', 'confirm_payment_intent')),
                command_session_id text,
                online             boolean NOT NULL DEFAULT false,
                link_epoch         bigint NOT NULL DEFAULT 0,
                CHECK ((command IS NULL) = (command_session_id IS NULL)),
                CHECK (command_session_id IS NULL OR command_session_id = session_id),
                CHECK (session_id IS NULL OR online)
            )
            """,
            "CREATE INDEX reader_ownership_session_idx ON reader_ownership (session_id) WHERE session_id IS NOT NULL",
            """
            CREATE FUNCTION reader_ownership_generation_decreased() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                RAISE EXCEPTION 'ownership generation of reader % would go from % to %: it only increases',
                    OLD.reader_id, OLD.generation, NEW.generation USING ERRCODE = 'check_violation';
            END $$
            """,
            """
            CREATE TRIGGER reader_ownership_generation_only_increases
                BEFORE UPDATE OF generation ON reader_ownership
                FOR EACH ROW WHEN (NEW.generation < OLD.generation)
                EXECUTE FUNCTION reader_ownership_generation_decreased()
            """,
            """
            CREATE TABLE ownership_history (
                reader_id        text NOT NULL,
                id               bigint GENERATED ALWAYS AS IDENTITY,
                from_session_id  text,
                from_lane_label  text,
                to_session_id    text,
                to_lane_label    text,
                generation       bigint NOT NULL,
                reason           ownership_reason NOT NULL,
                at               timestamptz NOT NULL DEFAULT clock_timestamp(),
                PRIMARY KEY (reader_id, id)
            )
            """,
            """
            CREATE UNIQUE INDEX ownership_history_generation_idx ON ownership_history (reader_id, generation)
                WHERE reason <> 'refused_busy'
            """,
            """
            CREATE FUNCTION ownership_history_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                RAISE EXCEPTION 'ownership_history is append-only' USING ERRCODE = 'insufficient_privilege';
            END $$
            """,
            """
            CREATE TRIGGER ownership_history_append_only
                BEFORE UPDATE OR DELETE OR TRUNCATE ON ownership_history
                FOR EACH STATEMENT EXECUTE FUNCTION ownership_history_append_only()
            """,
            """
            CREATE FUNCTION ownership_claim(
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
                    INSERT INTO ownership_history (reader_id, from_session_id, from_lane_label, to_session_id, to_lane_label, generation, reason)
                    SELECT c.reader_id, c.session_id, c.lane_label, p_session, p_lane,
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
            CREATE FUNCTION ownership_claim_batch(
                p_readers text[], p_sessions text[], p_lanes text[], p_fail_if_in_use boolean[],
                p_reader_discoveries bigint[], p_latest_discoveries bigint[]
            ) RETURNS TABLE (
                claim_index integer, outcome text, generation bigint, previous_generation bigint,
                owner_session_id text, owner_lane_label text, command text
            ) LANGUAGE plpgsql AS $$
            #variable_conflict use_column
            DECLARE
                k integer;
            BEGIN
                -- Readers are locked in id order, so two batches never wait on each other in a cycle.
                FOR k IN SELECT s.k FROM generate_subscripts(p_readers, 1) AS s (k) ORDER BY p_readers[s.k], s.k LOOP
                    RETURN QUERY
                    SELECT k, c.outcome, c.generation, c.previous_generation, c.owner_session_id, c.owner_lane_label, c.command
                    FROM ownership_claim(
                        p_readers[k], p_sessions[k], p_lanes[k], p_fail_if_in_use[k], p_reader_discoveries[k], p_latest_discoveries[k]
                    ) AS c;
                END LOOP;
            END $$
            """,
        ]
    )
}
