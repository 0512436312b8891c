import GatewayPostgres
import GatewayRepositories

/// The session rows the SDK surface reads and writes: PostgreSQL's ``SessionStore`` in the
/// gateway, an in-memory table in the services' own tests.
protocol SessionRepository: Sendable {
    func insertSession(
        id: String, account: String, posDeviceID: String, lane: String, locationScope: String?, nodeID: String, lease: Duration, token: String
    ) async throws(StoreError)
    /// Moves the open session whose resume token is `token` to `node` (its epoch grows by one)
    /// and returns its row; nil when no open session has that token.
    func adoptSession(token: String, node: String, lease: Duration) async throws(StoreError) -> AdoptedSessionRecord?
    func closeSession(_ id: String, node: String) async throws(StoreError)
    /// Renews the leases of the sessions whose row still has their epoch on `node`; returns their ids.
    func renewLeases(_ sessions: [SessionEpochRecord], node: String, lease: Duration) async throws(StoreError) -> Set<String>
    /// Keeps a session's answered discovery with its row; false when the row moved past `epoch`.
    func recordDiscovery(_ discovery: SessionDiscoveryRecord, session: String, epoch: Int64) async throws(StoreError) -> Bool
}

extension SessionStore: SessionRepository {}
