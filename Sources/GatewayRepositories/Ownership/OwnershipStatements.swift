import GatewayPostgres

/// The SQL of the ownership store: each operation is one statement, one round trip.
///
/// Every statement encodes the same rule, in the same order, as `ReaderOwnershipStateMachine`;
/// the store tests run every event in every state through both and compare. Identifiers are
/// bound as parameters, never interpolated.
enum OwnershipStatements {
    /// The claim, in one statement and one round trip: the `ownership_claim` function of
    /// migration 0002 (one data-modifying CTE). Parameters: reader, session, lane,
    /// failIfInUse, the reader object's discovery, the session's latest discovery.
    ///
    /// The CTE locks the reader's row (`FOR UPDATE`: under READ COMMITTED a claimant that
    /// waited re-reads the row as the previous claimant committed it) and decides by the state
    /// machine's rules in its order; it bumps the generation only for connected / replaced and
    /// appends connected, replaced and refused_busy to the history in the same statement.
    /// Claims on one reader are thereby serialised by the row lock: each sees its predecessor's
    /// result, so generations are consecutive and history ids follow them. Wrapping it in a
    /// PL/pgSQL function lets the server keep its plan per connection, where sending the CTE
    /// as an unnamed statement re-parses and re-plans it on every claim (about a third slower).
    /// Returns one row: the outcome, the generation after it, and the row as the claim found
    /// it (generation, owner, transaction command in progress).
    static let claim = """
        SELECT * FROM ownership_claim($1::text, $2::text, $3::text, $4::boolean, $5::bigint, $6::bigint)
        """

    /// The claim (``claim``) and the claimed reader's `readers` row for the connect's answer,
    /// in one statement: parameters 1–6 as for ``claim``, 7 the session's account. The CTE
    /// runs the claim once (a volatile function's CTE is never inlined); the reader's columns
    /// are NULL when it is not the account's (the columns of `ReaderStore.readerColumns`,
    /// decoded by `ReaderStore.reader(_:)`). One round trip and one commit per connect, where
    /// a second statement for the row doubled PostgreSQL's work per connect.
    static let claimWithReader = """
        WITH c AS (SELECT * FROM ownership_claim($1::text, $2::text, $3::text, $4::boolean, $5::bigint, $6::bigint))
        SELECT c.*, r.id, r.account_id, r.serial_number, r.label, r.device_type, r.software_version, r.location_id, r.last_seen_at, r.status
        FROM c LEFT JOIN readers r ON r.id = $1::text AND r.account_id = $7::text
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

    /// Several claims on distinct readers in one statement, one transaction and one commit,
    /// each with its reader's `readers` row for the connect's answer (as ``claimWithReader``
    /// does for one claim). Parameters: seven arrays of equal length, the claim's parameters of
    /// ``claim`` and each claim's session account (NULL where no row is wanted). Returns one
    /// row per claim with its 1-based `claim_index`, the columns of ``claim``, and the reader's
    /// columns (NULL when the reader is not that claim's account's).
    ///
    /// The claims are decided by `ownership_claim_set` of migration 0014: ``claim``'s rules
    /// written once over the whole set, which refuses a reader named twice
    /// (``OwnershipClaimBatcher`` sends a reader's later claim in a later statement); since
    /// migration 0027 it also sends the set's ownership notices itself, once per claim that
    /// another replica must hear, without the notice trigger's call per row. Each
    /// reader's row is looked up by key in a lateral subquery kept apart (`OFFSET 0`): joined
    /// plainly, the planner took a batch function's estimate of 1,000 rows and hashed the whole
    /// `readers` table for every batch (about 1.9 ms of PostgreSQL's CPU a batch at 10,000
    /// readers, growing with the fleet). `OwnershipClaimBatchPlanTests` checks both plans.
    static let claimBatch = """
        WITH c AS (SELECT * FROM ownership_claim_set($1::text[], $2::text[], $3::text[], $4::boolean[], $5::bigint[], $6::bigint[]))
        SELECT c.*, r.id, r.account_id, r.serial_number, r.label, r.device_type, r.software_version, r.location_id, r.last_seen_at, r.status
        FROM c LEFT JOIN LATERAL (
            SELECT * FROM readers r WHERE r.id = ($1::text[])[c.claim_index] AND r.account_id = ($7::text[])[c.claim_index] OFFSET 0
        ) r ON true
        """
}
