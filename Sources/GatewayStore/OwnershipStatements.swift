/// The SQL of the ownership store: each operation is one statement, one round trip.
///
/// Every statement encodes the same rule, in the same order, as `ReaderOwnershipStateMachine`;
/// the store tests run every event in every state through both and compare. Identifiers are
/// bound as parameters, never interpolated.
enum OwnershipStatements {
    /// The claim, in one statement. Parameters: reader, session, lane, failIfInUse, the reader
    /// object's discovery, the session's latest discovery.
    ///
    /// `current_owner` locks the reader's row (`FOR UPDATE`: under READ COMMITTED a claimant
    /// that waited re-reads the row as the previous claimant committed it) and decides by the
    /// state machine's rules in its order; `granted` bumps the generation only for connected /
    /// replaced; `recorded` appends connected, replaced and refused_busy to the history in the
    /// same statement. Claims on one reader are thereby serialised by the row lock: each sees
    /// its predecessor's result, so generations are consecutive and history ids follow them.
    /// Returns one row: the outcome, the generation after it, and the row as the claim found
    /// it (generation, owner, transaction command in progress).
    static let claim = """
        WITH current_owner AS (
            SELECT o.reader_id, o.session_id, o.lane_label, o.generation, o.command,
                   CASE
                       WHEN NOT o.online THEN 'reader_offline'
                       WHEN o.session_id = $2::text THEN 'already_owner'
                       WHEN $4::boolean AND o.command IS NOT NULL AND o.command_session_id <> $2::text THEN 'refused_busy'
                       WHEN o.session_id IS NULL THEN 'connected'
                       ELSE 'replaced'
                   END AS outcome
            FROM reader_ownership o
            WHERE o.reader_id = $1::text AND $5::bigint >= $6::bigint
            FOR UPDATE
        ), granted AS (
            UPDATE reader_ownership o
            SET session_id = $2::text, lane_label = $3::text, generation = o.generation + 1, since = now(),
                command = NULL, command_session_id = NULL
            FROM current_owner c
            WHERE o.reader_id = c.reader_id AND c.outcome IN ('connected', 'replaced')
            RETURNING o.generation
        ), recorded AS (
            INSERT INTO ownership_history (reader_id, from_session_id, from_lane_label, to_session_id, to_lane_label, generation, reason)
            SELECT c.reader_id, c.session_id, c.lane_label, $2::text, $3::text,
                   coalesce((SELECT g.generation FROM granted g), c.generation), c.outcome::ownership_reason
            FROM current_owner c
            WHERE c.outcome IN ('connected', 'replaced', 'refused_busy')
        )
        SELECT coalesce(
                   c.outcome,
                   CASE
                       WHEN NOT EXISTS (SELECT 1 FROM readers r WHERE r.id = $1::text) THEN 'unknown_reader'
                       WHEN $5::bigint < $6::bigint THEN 'stale_discovery'
                       ELSE 'reader_offline'
                   END
               ) AS outcome,
               coalesce((SELECT g.generation FROM granted g), c.generation) AS generation,
               c.generation AS previous_generation,
               c.session_id AS owner_session_id,
               c.lane_label AS owner_lane_label,
               c.command
        FROM (VALUES (1)) AS one (x)
        LEFT JOIN current_owner c ON true
        """

    /// Starts a transaction command, fenced by the owner's generation. Parameters: reader,
    /// session, generation, command. Returns `proceed` or the refusal, decided like
    /// `ReaderOwnershipStateMachine.fence` (an update that lost a race reports
    /// connected_to_another_session).
    static let commandStart = """
        WITH started AS (
            UPDATE reader_ownership o
            SET command = $4::text, command_session_id = $2::text
            WHERE o.reader_id = $1::text AND o.session_id = $2::text AND o.generation = $3::bigint AND o.command IS NULL
            RETURNING o.reader_id
        )
        SELECT CASE
                   WHEN EXISTS (SELECT 1 FROM started) THEN 'proceed'
                   WHEN o.reader_id IS NULL AND NOT EXISTS (SELECT 1 FROM readers r WHERE r.id = $1::text) THEN 'unknown_reader'
                   WHEN o.reader_id IS NULL THEN 'reader_offline'
                   WHEN o.session_id = $2::text AND o.generation = $3::bigint AND o.command IS NOT NULL THEN 'reader_busy'
                   WHEN o.generation > $3::bigint OR (o.session_id = $2::text AND o.generation = $3::bigint) THEN 'connected_to_another_session'
                   WHEN NOT o.online THEN 'reader_offline'
                   ELSE 'not_connected'
               END AS outcome
        FROM (VALUES (1)) AS one (x)
        LEFT JOIN reader_ownership o ON o.reader_id = $1::text
        """

    /// Ends the transaction command in progress, fenced like ``commandStart``. Returns
    /// `finished`, `ignored` (not the command in progress) or the refusal.
    static let commandFinish = """
        WITH finished AS (
            UPDATE reader_ownership o
            SET command = NULL, command_session_id = NULL
            WHERE o.reader_id = $1::text AND o.session_id = $2::text AND o.generation = $3::bigint AND o.command = $4::text
            RETURNING o.reader_id
        )
        SELECT CASE
                   WHEN EXISTS (SELECT 1 FROM finished) THEN 'finished'
                   WHEN o.reader_id IS NULL AND NOT EXISTS (SELECT 1 FROM readers r WHERE r.id = $1::text) THEN 'unknown_reader'
                   WHEN o.reader_id IS NULL THEN 'reader_offline'
                   WHEN o.session_id = $2::text AND o.generation = $3::bigint AND o.command IS DISTINCT FROM $4::text THEN 'ignored'
                   WHEN o.generation > $3::bigint OR (o.session_id = $2::text AND o.generation = $3::bigint) THEN 'connected_to_another_session'
                   WHEN NOT o.online THEN 'reader_offline'
                   ELSE 'not_connected'
               END AS outcome
        FROM (VALUES (1)) AS one (x)
        LEFT JOIN reader_ownership o ON o.reader_id = $1::text
        """

    /// Checks that a session still owns the reader at its generation, without writing
    /// (for commands that do not put the reader in use). Returns `proceed` or the refusal.
    static let fence = """
        SELECT CASE
                   WHEN o.reader_id IS NULL AND NOT EXISTS (SELECT 1 FROM readers r WHERE r.id = $1::text) THEN 'unknown_reader'
                   WHEN o.reader_id IS NULL THEN 'reader_offline'
                   WHEN o.session_id = $2::text AND o.generation = $3::bigint THEN 'proceed'
                   WHEN o.generation > $3::bigint THEN 'connected_to_another_session'
                   WHEN NOT o.online THEN 'reader_offline'
                   ELSE 'not_connected'
               END AS outcome
        FROM (VALUES (1)) AS one (x)
        LEFT JOIN reader_ownership o ON o.reader_id = $1::text
        """
}
