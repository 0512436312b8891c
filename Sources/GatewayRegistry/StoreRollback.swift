import GatewayDomain

/// A reader's ownership row that went back in time: PostgreSQL shows an older state than
/// this replica has already acted on, so changes it was told were committed are gone (an
/// asynchronous standby promoted without the old primary's last transactions).
///
/// What this replica knows and the store must never be behind of, per reader:
/// - the highest generation it has seen for the reader (``floor``): granted to a session
///   here, or told to the reader on its link here. A claim on a row below it would hand a
///   generation out a second time;
/// - the epoch of the reader's live link here: a row with an older epoch has lost the
///   attach, so the store takes the reader for offline (or linked elsewhere) while it is here.
///
/// A synchronous promotion loses nothing: every row is at or past what replicas know, and no
/// rollback is found, though the server's timeline changed.
public struct StoreRollback: Hashable, Sendable {
    public var reader: ReaderID
    /// The generation the row shows.
    public var storeGeneration: OwnershipGeneration
    /// The highest generation this replica has seen for the reader.
    public var floor: OwnershipGeneration
    /// The live link here, to write back (its epoch and this node) when the row lost it.
    public var link: LinkEpoch?
    /// The sessions here that hold the reader at a generation the row does not have: their
    /// ownership vanished with the lost transactions.
    public var vanished: [Holder]
    /// The session here holding the reader at ``floor`` (the row must name it at that
    /// generation), nil when the floor comes from the link alone.
    public var floorHolder: SessionID?

    /// A session here holding the reader, at the generation it was granted.
    public struct Holder: Hashable, Sendable {
        public var session: SessionID
        public var generation: OwnershipGeneration

        public init(session: SessionID, generation: OwnershipGeneration) {
            self.session = session
            self.generation = generation
        }
    }

    /// What one replica remembers of one reader (see ``ReaderRegistry/storeRollback(of:)``).
    public struct Memory: Hashable, Sendable {
        /// The epoch of the live link here (nil: no link here).
        public var linkEpoch: LinkEpoch?
        /// The highest generation told to the reader on its link here.
        public var linkKnownGeneration: OwnershipGeneration
        /// The sessions here holding the reader.
        public var holders: [Holder]

        public init(linkEpoch: LinkEpoch?, linkKnownGeneration: OwnershipGeneration = .initial, holders: [Holder] = []) {
            self.linkEpoch = linkEpoch
            self.linkKnownGeneration = linkKnownGeneration
            self.holders = holders
        }
    }

    /// Compares `row` with `memory`: nil when the row is at or past everything this replica
    /// knows (the usual case, and every case after a synchronous failover), else what went
    /// back and must be repaired.
    ///
    /// - The row is behind when its generation is below the floor, or when the link here has
    ///   a newer epoch than the row's (the row lost the attach).
    /// - A session here has vanished when it holds the reader at a generation above the row's,
    ///   or at the row's generation while the row names another owner (the same generation
    ///   handed to two sessions is what the repair exists to prevent).
    public static func check(_ row: OwnershipRow, against memory: Memory) -> StoreRollback? {
        var floor = memory.linkEpoch == nil ? OwnershipGeneration.initial : memory.linkKnownGeneration
        var floorHolder: SessionID?
        for holder in memory.holders where holder.generation > floor || (holder.generation == floor && floorHolder == nil) {
            floor = holder.generation
            floorHolder = holder.session
        }
        let linkLost = memory.linkEpoch.map { row.epoch < $0 } ?? false
        let vanished = memory.holders.filter { holder in
            holder.generation > row.generation || (holder.generation == row.generation && row.session != holder.session)
        }.sorted { $0.session.rawValue < $1.session.rawValue }
        guard row.generation < floor || linkLost || !vanished.isEmpty else { return nil }
        return StoreRollback(
            reader: row.reader, storeGeneration: row.generation, floor: floor, link: linkLost ? memory.linkEpoch : nil,
            vanished: vanished, floorHolder: floorHolder
        )
    }

    /// The generation the repair writes: above both the row's and every one this replica has
    /// seen, so that the next claim hands out a generation nobody has held.
    public var repairedGeneration: OwnershipGeneration { OwnershipGeneration(max(floor.rawValue, storeGeneration.rawValue) + 1) }
}
