import GatewayDomain
import GatewayPostgres
import GatewayRepositories
import GatewayWire

/// Brings this replica's memory of a reader's ownership up to its row (a change made on
/// another replica whose notice has not arrived): ``ClusterFollower`` in the gateway.
protocol OwnershipFollowing: Sendable {
    /// Re-reads `reader`'s ownership and applies what changed; false when the store could not be read.
    @discardableResult
    func refresh(_ reader: ReaderID) async -> Bool
}

extension ClusterFollower: OwnershipFollowing {}

/// Told of the readers whose ownership or status a surface changed, for the fleet's
/// watchers: ``FleetWatchHub`` in the gateway.
protocol FleetChanges: Sendable {
    func changed(_ readers: [String])
}

extension FleetWatchHub: FleetChanges {}

/// `WatchFleet`'s watchers: told of changes, and given new watchers (the snapshot, then the
/// changes until the call ends): ``FleetWatchHub`` in the gateway.
protocol FleetWatching: FleetChanges {
    /// Serves a watcher of `account` authorised by secret key `key` (its call ends when the key is revoked).
    func watch(_ call: ServerCall, account: String, location: String?, locations: [ReaderGatewayV1.Location], key: String) async
}

extension FleetWatchHub: FleetWatching {}

/// How a session lost a reader, as another replica recorded it (the event a session told of
/// a loss here carries): PostgreSQL's ``SessionStore`` in the gateway.
protocol SessionDisplacements: Sendable {
    func displacement(of session: String, from reader: String, after generation: Int64) async throws(StoreError) -> Displacement?
}

extension SessionStore: SessionDisplacements {}
