import GatewayCore
import GatewayPostgres

extension Migration {
    /// Several gateway replicas sharing one database.
    ///
    /// - `gateway_nodes`: one row per running replica (an incarnation: a new id on every process
    ///   start), with the address other replicas dial and its last heartbeat. A row whose
    ///   heartbeat is older than the lease belongs to a dead replica and is reaped (deleted, its
    ///   reader links detached) by whichever replica notices first (see `ClusterStatements`).
    /// - `reader_ownership.link_node`: the replica holding the reader's link of `link_epoch`
    ///   (NULL: no replica holds it). `link_detached_at`: when that link's replica died or
    ///   drained; the owner keeps the reader until the offline bound passes without a re-attach.
    /// - `sdk_sessions.location_scope`: the location of the session's connection token, kept so
    ///   the session can resume on another replica.
    /// - `cluster_settings`: values every replica must agree on, created once by the first
    ///   replica that needs them (the internal certificate authority).
    /// - A trigger announces every change of a reader's owner or link on the channel
    ///   `reader_gateway_ownership`, payload `<reader_id> <generation> <session_id or -> <link_epoch>
    ///   <link_node or ->` (see `OwnershipNotice`). NOTIFY is a hint; the rows are the truth.
    /// - An index finding detached readers for the offline-bound release, and one finding the
    ///   links of a node for the reap.
    static let v0004Cluster = Migration(
        version: 4,
        name: "gateway nodes, reader links per node, cluster settings, ownership notifications",
        compatibleFrom: GatewayVersion(0, 1, 0),
        statements: [
            """
            CREATE TABLE gateway_nodes (
                node_id          text PRIMARY KEY,
                internal_address text NOT NULL,
                started_at       timestamptz NOT NULL DEFAULT now(),
                heartbeat_at     timestamptz NOT NULL DEFAULT now()
            )
            """,
            "ALTER TABLE reader_ownership ADD COLUMN link_node text",
            "ALTER TABLE reader_ownership ADD COLUMN link_detached_at timestamptz",
            "CREATE INDEX reader_ownership_link_node_idx ON reader_ownership (link_node) WHERE link_node IS NOT NULL",
            "CREATE INDEX reader_ownership_detached_idx ON reader_ownership (link_detached_at) WHERE link_detached_at IS NOT NULL",
            "ALTER TABLE sdk_sessions ADD COLUMN location_scope text",
            """
            CREATE TABLE cluster_settings (
                name  text PRIMARY KEY,
                value text NOT NULL
            )
            """,
            """
            CREATE FUNCTION gateway_nodes_remove(p_node text, p_lease_seconds double precision)
            RETURNS TABLE (node_id text, detached_links bigint) LANGUAGE plpgsql AS $$
            #variable_conflict use_column
            DECLARE
                removed text[];
            BEGIN
                -- Two statements, each with its own snapshot: a reader attached to a removed node
                -- committed its attach before the DELETE could lock the node row (the attach holds
                -- it FOR KEY SHARE), so the UPDATE's fresh snapshot sees that link and detaches it.
                WITH removed_nodes AS (
                    DELETE FROM gateway_nodes n
                    WHERE (p_node IS NULL OR n.node_id = p_node)
                      AND (p_lease_seconds IS NULL OR n.heartbeat_at < now() - make_interval(secs => p_lease_seconds))
                    RETURNING n.node_id
                )
                SELECT coalesce(array_agg(r.node_id ORDER BY r.node_id), '{}') INTO removed FROM removed_nodes r;
                RETURN QUERY
                WITH detached AS (
                    UPDATE reader_ownership o SET link_node = NULL, link_detached_at = now()
                    FROM unnest(removed) AS r (id)
                    WHERE o.link_node = r.id
                    RETURNING r.id
                )
                SELECT u.id, (SELECT count(*) FROM detached d WHERE d.id = u.id) FROM unnest(removed) AS u (id);
            END $$
            """,
            """
            CREATE FUNCTION reader_ownership_notify() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                PERFORM pg_notify(
                    'reader_gateway_ownership',
                    NEW.reader_id || ' ' || NEW.generation || ' ' || coalesce(NEW.session_id, '-') || ' '
                        || NEW.link_epoch || ' ' || coalesce(NEW.link_node, '-')
                );
                RETURN NULL;
            END $$
            """,
            """
            CREATE TRIGGER reader_ownership_notify
                AFTER UPDATE ON reader_ownership
                FOR EACH ROW WHEN (
                    OLD.generation IS DISTINCT FROM NEW.generation
                    OR OLD.session_id IS DISTINCT FROM NEW.session_id
                    OR OLD.link_epoch IS DISTINCT FROM NEW.link_epoch
                    OR OLD.link_node IS DISTINCT FROM NEW.link_node
                )
                EXECUTE FUNCTION reader_ownership_notify()
            """,
        ]
    )
}
