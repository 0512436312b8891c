import GatewayDomain

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
