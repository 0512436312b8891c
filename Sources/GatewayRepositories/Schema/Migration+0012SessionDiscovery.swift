import GatewayCore
import GatewayPostgres

extension Migration {
    /// A session's latest answered discovery, kept with its row.
    ///
    /// `ConnectReader` accepts only a reader from the session's latest discovery that
    /// answered. That rule lived in the memory of the replica holding the session, so a
    /// session resumed on another replica (its replica died or drained) had no discovery
    /// there, and every connect of a reader it had discovered failed with
    /// `STALE_DISCOVERY`. Each answered discovery now writes its number and the reader ids
    /// it answered with (one statement per discovery; heartbeats and connects write
    /// nothing here), and a replica taking the session over starts from them.
    ///
    /// And each replica's number of `WatchFleet` watchers, written with its node heartbeat,
    /// so that a replica announces its fleet changes on `reader_gateway_fleet` only while some
    /// replica has a watcher: a cluster nobody watches sends no fleet NOTIFY.
    static let v0012SessionDiscovery = Migration(
        version: 12,
        name: "session discovery kept with the session; fleet watchers per node",
        compatibleFrom: GatewayVersion(0, 1, 0),
        statements: [
            "ALTER TABLE sdk_sessions ADD COLUMN discovery_answered bigint, ADD COLUMN discovered_readers text[]",
            "ALTER TABLE gateway_nodes ADD COLUMN fleet_watchers integer NOT NULL DEFAULT 0",
        ]
    )
}
