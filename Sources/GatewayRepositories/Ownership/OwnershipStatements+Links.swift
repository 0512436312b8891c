import GatewayPostgres

extension OwnershipStatements {
    /// The reader's link with epoch `$2` went down on a live replica (the fleet's
    /// `readers.status` follows in the same statement): the reader is offline, its owner loses
    /// it. A detached link (its replica died or drained) is not this replica's any more: the
    /// event is stale, the offline-bound release decides. Returns `owner_lost`, `updated`,
    /// `ignored_stale` or `unknown_reader`.
    static let readerLost = """
        WITH link AS (
            SELECT o.reader_id, o.session_id, o.lane_label, o.command
            FROM reader_ownership o
            WHERE o.reader_id = $1::text AND o.online AND o.link_epoch = $2::bigint AND o.link_detached_at IS NULL
            FOR UPDATE
        ), \(takenOffline(from: "link"))
        SELECT CASE
                   WHEN u.reader_id IS NOT NULL AND l.session_id IS NOT NULL THEN 'owner_lost'
                   WHEN u.reader_id IS NOT NULL THEN 'updated'
                   WHEN NOT EXISTS (SELECT 1 FROM readers r WHERE r.id = $1::text) THEN 'unknown_reader'
                   ELSE 'ignored_stale'
               END AS outcome,
               u.generation, l.session_id AS from_session_id, l.lane_label AS from_lane_label, l.command AS interrupted_command
        FROM (VALUES (1)) AS one (x)
        LEFT JOIN link l ON true
        LEFT JOIN updated u ON true
        """

    /// Creates the ownership row of a registered reader, if missing (before its first attach).
    static let readerRow = """
        INSERT INTO reader_ownership (reader_id) SELECT r.id FROM readers r WHERE r.id = $1::text ON CONFLICT (reader_id) DO NOTHING
        """

    /// The reader attached a new link on node `$3`: epoch `$2`, or the next epoch when `$2` is
    /// NULL (the fleet's `readers.status` follows in the same statement).
    ///
    /// The owner, its generation and its transaction mark are kept; the link's node is set and
    /// a detach is cleared. With a node, the node's row is locked `FOR KEY SHARE` first (before
    /// the reader's row, the order `gateway_nodes_remove` also takes), so an attach and the reap
    /// of its node are serialized: either the attach finds the node gone (`node_not_registered`:
    /// the replica was reaped and must fence itself) or the reap sees the attached link and
    /// detaches it. A NULL node records no node (a single gateway that does not register).
    /// Returns `updated`, `ignored_stale`, `unknown_reader` or `node_not_registered`, with the
    /// new epoch.
    static let readerAttached = """
        WITH node AS (
            SELECT n.node_id FROM gateway_nodes n WHERE n.node_id = $3::text FOR KEY SHARE
        ), link AS (
            SELECT o.reader_id, o.link_epoch
            FROM reader_ownership o
            WHERE o.reader_id = $1::text AND ($2::bigint IS NULL OR o.link_epoch < $2::bigint)
              AND ($3::text IS NULL OR EXISTS (SELECT 1 FROM node))
            FOR UPDATE
        ), updated AS (
            UPDATE reader_ownership o
            SET online = true, link_epoch = coalesce($2::bigint, l.link_epoch + 1), link_node = $3::text, link_detached_at = NULL
            FROM link l
            WHERE o.reader_id = l.reader_id
            RETURNING o.reader_id, o.generation, o.link_epoch
        ), status AS (
            UPDATE readers r SET status = 'online', last_seen_at = now()
            FROM updated u
            WHERE r.id = u.reader_id
        )
        SELECT CASE
                   WHEN u.reader_id IS NOT NULL THEN 'updated'
                   WHEN NOT EXISTS (SELECT 1 FROM readers r WHERE r.id = $1::text) THEN 'unknown_reader'
                   WHEN $3::text IS NOT NULL AND NOT EXISTS (SELECT 1 FROM node) THEN 'node_not_registered'
                   ELSE 'ignored_stale'
               END AS outcome,
               u.generation, u.link_epoch
        FROM (VALUES (1)) AS one (x)
        LEFT JOIN updated u ON true
        """

    /// The replica holding the reader's link of epoch `$2` died or drains: the link is detached
    /// (no node holds it) and the owner keeps the reader until the offline bound passes without
    /// a re-attach. Fenced by the epoch; a link already detached stays as it was. Returns one
    /// row per detached link (none, or the reader).
    static let readerDetached = """
        UPDATE reader_ownership o
        SET link_node = NULL, link_detached_at = now()
        WHERE o.reader_id = $1::text AND o.online AND o.link_epoch = $2::bigint AND o.link_detached_at IS NULL
        RETURNING o.reader_id
        """

    /// Readers whose link has been detached for `$1` seconds or more, at most `$2` per call,
    /// released like a lost reader: offline (and `readers.status` offline), the owner loses it
    /// (`reader_lost` in the history).
    ///
    /// Safe on every replica at once: rows another releaser (or an attach) holds are skipped
    /// (`SKIP LOCKED`), and a row already released or re-attached is no longer detached when
    /// re-checked, so each release happens once.
    static let releaseDetached = """
        WITH expired AS (
            SELECT o.reader_id, o.session_id, o.lane_label, o.command
            FROM reader_ownership o
            WHERE o.link_detached_at IS NOT NULL AND o.link_detached_at <= now() - make_interval(secs => $1::double precision)
            ORDER BY o.link_detached_at
            LIMIT $2::integer
            FOR UPDATE SKIP LOCKED
        ), \(takenOffline(from: "expired"))
        SELECT e.reader_id, e.session_id AS from_session_id, e.lane_label AS from_lane_label, u.generation,
               e.command AS interrupted_command, u.link_epoch
        FROM expired e JOIN updated u USING (reader_id)
        ORDER BY e.reader_id
        """

    /// The CTEs `updated`, `status` and `recorded` of a reader going offline with its link:
    /// every reader the CTE `source` selects (with its `session_id` and `lane_label`) loses
    /// its owner, transaction mark and link, its generation moves on (``nextGeneration``) if
    /// it had an owner, `readers.status` turns offline, and the history records `reader_lost`.
    /// `updated` returns `reader_id`, `generation` and `link_epoch`. Shared by ``readerLost``
    /// (one link that went down) and ``releaseDetached`` (links detached past the bound).
    private static func takenOffline(from source: String) -> String {
        """
        updated AS (
            UPDATE reader_ownership o
            SET online = false, session_id = NULL, lane_label = NULL, command = NULL, command_session_id = NULL,
                link_node = NULL, link_detached_at = NULL,
                generation = CASE WHEN s.session_id IS NULL THEN o.generation ELSE \(nextGeneration) END,
                since = CASE WHEN s.session_id IS NULL THEN o.since ELSE now() END
            FROM \(source) s
            WHERE o.reader_id = s.reader_id
            RETURNING o.reader_id, o.generation, o.link_epoch
        ), status AS (
            UPDATE readers r SET status = 'offline', last_seen_at = now()
            FROM updated u
            WHERE r.id = u.reader_id
        ), recorded AS (
            INSERT INTO ownership_history (reader_id, from_session_id, from_lane_label, from_pos_device_id, generation, reason)
            SELECT s.reader_id, s.session_id, s.lane_label, \(posDevice(of: "s.session_id")), u.generation, 'reader_lost'
            FROM \(source) s JOIN updated u USING (reader_id)
            WHERE s.session_id IS NOT NULL
        )
        """
    }
}
