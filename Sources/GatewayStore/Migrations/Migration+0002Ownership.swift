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
    /// - indexes for the admin queries: owner of a reader (primary key), ownership at a location
    ///   or account (0001's readers indexes, then the primary key), history of a reader (primary
    ///   key `(reader_id, id)`), readers owned by a session (partial index, also used by the
    ///   lease sweep), sessions of an account (0001's open-sessions index).
    static let v0002Ownership = Migration(
        version: 2,
        name: "reader ownership and ownership history",
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
        ]
    )
}
