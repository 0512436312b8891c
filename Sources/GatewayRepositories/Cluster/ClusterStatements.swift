import GatewayPostgres

/// The statements of ``ClusterStore``; each is one round trip.
enum ClusterStatements {
    /// Registers a node (parameters: node id, internal address, release, newest schema the
    /// build knows); registering again refreshes the address and the heartbeat.
    static let register = """
        INSERT INTO gateway_nodes (node_id, internal_address, version, schema_version) VALUES ($1::text, $2::text, $3::text, $4::integer)
        ON CONFLICT (node_id) DO UPDATE SET internal_address = EXCLUDED.internal_address, version = EXCLUDED.version,
            schema_version = EXCLUDED.schema_version, heartbeat_at = now()
        """

    /// A node's heartbeat (parameter: node id); touches no row when the node was reaped. A
    /// heartbeat and a concurrent reap of the same row are serialized by its row lock: the reap
    /// re-checks the refreshed heartbeat and leaves the node alone.
    static let heartbeat = "UPDATE gateway_nodes SET heartbeat_at = now() WHERE node_id = $1::text"

    /// The heartbeat with the node's `WatchFleet` watchers (parameters: node id, watchers);
    /// returns the other nodes' watchers (no row when the node was reaped).
    static let heartbeatWithWatchers = """
        UPDATE gateway_nodes SET heartbeat_at = now(), fleet_watchers = $2::integer WHERE node_id = $1::text
        RETURNING (SELECT coalesce(sum(fleet_watchers), 0) FROM gateway_nodes WHERE node_id <> $1::text) AS watchers_elsewhere
        """

    /// Deletes the nodes silent for `$1` seconds and detaches their links (migration 0004's
    /// `gateway_nodes_remove`): one row per node removed. Concurrent reapers wait on the
    /// node rows and each node is removed by one of them.
    static let reap = "SELECT node_id, detached_links FROM gateway_nodes_remove(NULL, $1::double precision)"

    /// Deletes one node and detaches its links (parameter: node id).
    static let deregister = "SELECT node_id, detached_links FROM gateway_nodes_remove($1::text, NULL)"

    static let nodes = "SELECT node_id, internal_address, started_at, heartbeat_at, version FROM gateway_nodes ORDER BY node_id"

    /// The node holding a reader's live link (parameter: reader); no row when the link is
    /// down, detached, or on a node that is no longer registered.
    static let readerHome = """
        SELECT o.link_epoch, o.link_node, n.internal_address
        FROM reader_ownership o JOIN gateway_nodes n ON n.node_id = o.link_node
        WHERE o.reader_id = $1::text AND o.online AND o.link_detached_at IS NULL
        """

    /// The ownership rows of some readers (parameter: a text array).
    static let snapshot = """
        SELECT o.reader_id, o.generation, o.session_id, o.lane_label, o.link_epoch, o.link_node, o.online,
               o.link_detached_at IS NOT NULL AS detached
        FROM reader_ownership o
        WHERE o.reader_id = ANY ($1::text[])
        ORDER BY o.reader_id
        """

    /// Creates a setting unless it exists (parameters: name, value); waits for a concurrent
    /// creator to commit, then does nothing.
    static let createSetting = "INSERT INTO cluster_settings (name, value) VALUES ($1::text, $2::text) ON CONFLICT (name) DO NOTHING"

    static let setting = "SELECT value FROM cluster_settings WHERE name = $1::text"
}
