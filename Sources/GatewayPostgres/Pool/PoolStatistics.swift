/// What a ``PostgresClient``'s pool holds at one moment: its open connections by whether a
/// statement or transaction is using them, and the work waiting for one.
public struct PoolStatistics: Sendable, Equatable {
    /// Open connections with no statement in flight and no transaction.
    public var idle = 0
    /// Open connections running statements or held by a transaction.
    public var inUse = 0
    /// Statements and transactions waiting for a connection.
    public var waiting = 0
    /// The most connections the pool opens (``PostgresConfiguration/maximumConnections``).
    public var maximumConnections: Int

    public init(idle: Int = 0, inUse: Int = 0, waiting: Int = 0, maximumConnections: Int) {
        self.idle = idle
        self.inUse = inUse
        self.waiting = waiting
        self.maximumConnections = maximumConnections
    }
}
