import GatewayPostgres

extension OwnershipStatements {
    /// The POS device of the session whose id is the SQL expression `session`, read from its
    /// row as a history row is written: the row keeps it whatever becomes of the session.
    static func posDevice(of session: String) -> String {
        "(SELECT ps.pos_device_id FROM sdk_sessions ps WHERE ps.id = \(session))"
    }

    /// The generation a change of owner moves a reader's row to: the next one, and at least
    /// the floor of the timeline the primary writes (migration 0020), so a promoted server
    /// never hands out again a generation its predecessor did.
    static let nextGeneration = "greatest(o.generation + 1, ownership_generation_floor())"

    /// The owner disconnects, fenced by its generation. Parameters: reader, session,
    /// generation. Returns `released` with the new generation, or the refusal.
    static let release = """
        WITH ended AS (
            SELECT o.reader_id, o.session_id, o.lane_label, o.command, o.command_session_id
            FROM reader_ownership o
            WHERE o.reader_id = $1::text AND o.session_id = $2::text AND o.generation = $3::bigint
            FOR UPDATE
        ), cleared AS (
            UPDATE reader_ownership o
            SET session_id = NULL, lane_label = NULL, command = NULL, command_session_id = NULL,
                generation = \(nextGeneration), since = now()
            FROM ended e
            WHERE o.reader_id = e.reader_id
            RETURNING o.reader_id, o.generation
        ), recorded AS (
            INSERT INTO ownership_history (reader_id, from_session_id, from_lane_label, from_pos_device_id, generation, reason)
            SELECT e.reader_id, e.session_id, e.lane_label, \(posDevice(of: "e.session_id")), c.generation, 'released'
            FROM ended e JOIN cleared c USING (reader_id)
        )
        SELECT CASE
                   WHEN c.reader_id IS NOT NULL THEN 'released'
                   WHEN o.reader_id IS NULL AND NOT EXISTS (SELECT 1 FROM readers r WHERE r.id = $1::text) THEN 'unknown_reader'
                   WHEN o.reader_id IS NULL THEN 'reader_offline'
                   WHEN o.generation > $3::bigint OR (o.session_id = $2::text AND o.generation = $3::bigint) THEN 'connected_to_another_session'
                   WHEN NOT o.online THEN 'reader_offline'
                   ELSE 'not_connected'
               END AS outcome,
               c.generation, e.session_id AS from_session_id, e.lane_label AS from_lane_label, e.command AS interrupted_command
        FROM (VALUES (1)) AS one (x)
        LEFT JOIN reader_ownership o ON o.reader_id = $1::text
        LEFT JOIN ended e ON true
        LEFT JOIN cleared c ON true
        """

    /// A fleet admin releases a reader from whoever owns it. Parameter: reader. Returns
    /// `released`, `not_connected` or `unknown_reader`.
    static let adminRelease = """
        WITH \(adminReleaseSteps), recorded AS (
            INSERT INTO ownership_history (reader_id, from_session_id, from_lane_label, from_pos_device_id, generation, reason)
            SELECT e.reader_id, e.session_id, e.lane_label, \(posDevice(of: "e.session_id")), c.generation, 'admin_released'
            FROM ended e JOIN cleared c USING (reader_id)
        )
        \(adminReleaseOutcome)
        """

    /// An admin release's first steps (`ended`: the owner, under the row's lock; `cleared`: the
    /// row without it, one generation up), for the statements that release and record it.
    static let adminReleaseSteps = """
        ended AS (
            SELECT o.reader_id, o.session_id, o.lane_label, o.command
            FROM reader_ownership o
            WHERE o.reader_id = $1::text AND o.session_id IS NOT NULL
            FOR UPDATE
        ), cleared AS (
            UPDATE reader_ownership o
            SET session_id = NULL, lane_label = NULL, command = NULL, command_session_id = NULL,
                generation = \(nextGeneration), since = now()
            FROM ended e
            WHERE o.reader_id = e.reader_id
            RETURNING o.reader_id, o.generation
        )
        """

    /// What an admin release answers, read from ``adminReleaseSteps``.
    static let adminReleaseOutcome = """
        SELECT CASE
                   WHEN c.reader_id IS NOT NULL THEN 'released'
                   WHEN NOT EXISTS (SELECT 1 FROM readers r WHERE r.id = $1::text) THEN 'unknown_reader'
                   ELSE 'not_connected'
               END AS outcome,
               c.generation, e.session_id AS from_session_id, e.lane_label AS from_lane_label, e.command AS interrupted_command
        FROM (VALUES (1)) AS one (x)
        LEFT JOIN ended e ON true
        LEFT JOIN cleared c ON true
        """

    /// Ends the ownerships of sessions whose lease ran out, at most `$1` readers per call.
    ///
    /// Safe on every replica at once: rows another sweeper (or a claim) holds are skipped
    /// (`SKIP LOCKED`), and a row a sweeper already cleared no longer joins an expired session
    /// when re-checked, so each expiry is recorded once.
    static let expireSessions = """
        WITH expired AS (
            SELECT o.reader_id, o.session_id, o.lane_label, o.command, s.pos_device_id
            FROM reader_ownership o
            JOIN sdk_sessions s ON s.id = o.session_id
            WHERE s.lease_expires_at <= now()
            LIMIT $1::integer
            FOR UPDATE OF o SKIP LOCKED
        ), cleared AS (
            UPDATE reader_ownership o
            SET session_id = NULL, lane_label = NULL, command = NULL, command_session_id = NULL,
                generation = \(nextGeneration), since = now()
            FROM expired e
            WHERE o.reader_id = e.reader_id
            RETURNING o.reader_id, o.generation
        ), recorded AS (
            INSERT INTO ownership_history (reader_id, from_session_id, from_lane_label, from_pos_device_id, generation, reason)
            SELECT e.reader_id, e.session_id, e.lane_label, e.pos_device_id, c.generation, 'session_expired'
            FROM expired e JOIN cleared c USING (reader_id)
        )
        SELECT e.reader_id, e.session_id AS from_session_id, e.lane_label AS from_lane_label, c.generation,
               e.command AS interrupted_command
        FROM expired e JOIN cleared c USING (reader_id)
        """
}
