import GatewayCore
import GatewayPostgres

extension Migration {
    /// A session's epoch: which adoption of the session its row is at.
    ///
    /// A replica's in-memory session is a cache of its row. A lane whose connection drops
    /// resumes on any replica, which adopts the row; the replica that held the session
    /// before may still keep its copy (it was paused, or the lane simply moved), and a
    /// copy answered from after the session moved on says less than PostgreSQL knows
    /// (no reader where the row has one, a discovery it never saw). Each adoption now
    /// raises `epoch` under the row's lock, reads the row's reader and discovery in the
    /// same statement, and announces the new epoch on `reader_gateway_sessions`, so that
    /// replicas holding an older copy drop it. The lease renewal and the discovery record
    /// are fenced by the epoch too: a copy the row has moved past writes nothing, and a
    /// renewal that finds its copy stale drops it even when the announcement was missed.
    static let v0015SessionEpoch = Migration(
        version: 15,
        name: "session epoch: an adopted session's row fences older copies",
        compatibleFrom: GatewayVersion(0, 1, 0),
        statements: [
            "ALTER TABLE sdk_sessions ADD COLUMN epoch bigint NOT NULL DEFAULT 1",
        ]
    )
}
