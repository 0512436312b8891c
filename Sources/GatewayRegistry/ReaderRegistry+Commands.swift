import GatewayDomain

extension ReaderRegistry {
    /// Why a relay is refused before it reaches a link.
    public enum RelayRefusal: Hashable, Sendable {
        /// The session is not held here, or its lease ran out while detached.
        case sessionUnknown
        /// The session lost its reader: its armed refusal (consumed).
        case refusal(OwnershipRefusal)
        /// The session owns no reader.
        case notConnected
        /// This replica ended the session's stream on this connection asking for a resume
        /// (``ReaderRegistry/resumeRequired(_:on:)``): the call fails the same way.
        case resumeFirst(StreamEnding)
    }

    /// A session, the reader it owns, the generation it owns it at, and where the
    /// reader's link lives when it is not here (cached).
    public struct OwnedReader: Hashable, Sendable {
        public var session: SessionID
        public var reader: ReaderID
        public var generation: OwnershipGeneration
        public var home: ReaderHomeCache?

        public init(session: SessionID, reader: ReaderID, generation: OwnershipGeneration, home: ReaderHomeCache?) {
            self.session = session
            self.reader = reader
            self.generation = generation
            self.home = home
        }
    }

    /// Where a relay goes.
    public enum RelayDecision: Hashable, Sendable {
        /// Down the link here: send the command with this key's id.
        case local(CommandKey, OwnedReader)
        /// The reader's link lives on another replica: over the replica link.
        case remote(OwnedReader)
        /// The link has seen a newer owner than the session's generation (a change made on
        /// another replica this session has not heard yet): refresh, then refuse.
        case stale(OwnedReader)
        /// Not held here, or not on this connection: it may be adopted from the store, then relayed.
        case unknownSession
        case refused(RelayRefusal)
        /// A cancel that reached the session's collect before the collect reached the link:
        /// the collect ends unsent (COMMAND_CANCELED) and the cancel is answered at once.
        case cancelledBeforeLink
        /// A cancel registered with this key, written down the link by the collect's sender
        /// right after the collect it follows (``collectSent(_:)``).
        case afterCollect(CommandKey, OwnedReader)
    }

    /// A session relays a display, cancel, reboot or update command on `connection`: one
    /// event checks the session (lease, use, armed refusal, owned reader) and registers the
    /// command on the reader's link, fenced by the generation the session owns it at.
    /// A cancel of a collect (`cancelsCollect`) first meets the session's collect wherever it is.
    public mutating func commandRequested(
        _ token: String, connection: UInt64, reboot: Bool, cancelsCollect: Bool = false, deadline: ContinuousClock.Instant,
        now: ContinuousClock.Instant, nowUnixMs: Int64, lease: Duration
    ) -> RelayDecision {
        if let ending = resumeRequired(token, on: connection) { return .refused(.resumeFirst(ending)) }
        guard let index = sessions.index(forKey: token) else { return .unknownSession }
        // Reached in place: reading through `values[index]` copies nothing more than the fields.
        if sessions.values[index].leaseExpired(at: now, lease: lease) { return .refused(.sessionUnknown) }
        // A connection the session is not bound to adopts it from its row first (see `sessionUsed`).
        guard sessions.values[index].connections.contains(connection) else { return .unknownSession }
        attach(token, connection: connection, nowUnixMs: nowUnixMs)
        if let refusal = sessions.values[index].pendingRefusal {
            sessions.values[index].pendingRefusal = nil
            return .refused(.refusal(refusal))
        }
        guard let reader = sessions.values[index].reader else { return .refused(.notConnected) }
        let owned = OwnedReader(
            session: sessions.values[index].id, reader: reader, generation: sessions.values[index].generation, home: sessions.values[index].home
        )
        if cancelsCollect, let decision = cancelMeetsCollect(at: index, owned, deadline: deadline) { return decision }
        guard links[reader] != nil else { return .remote(owned) }
        guard let key = register(owned.session, on: reader, ifCurrent: owned.generation, isCollect: false, reboot: reboot, deadline: deadline) else {
            return .stale(owned)
        }
        return .local(key, owned)
    }

    /// Registers a command of `session` on the reader's link (collect and confirm after the
    /// store's fence, a relay from another replica after the link's). Nil when the reader
    /// has no link here.
    public mutating func commandDispatched(
        _ session: SessionID, to reader: ReaderID, isCollect: Bool, reboot: Bool, deadline: ContinuousClock.Instant
    ) -> CommandKey? {
        register(session, on: reader, ifCurrent: nil, isCollect: isCollect, reboot: reboot, deadline: deadline)
    }

    /// With `generation`, the relay is fenced at the link: nil, and nothing registered, when
    /// the link has seen a newer owner. The link is modified in place (never copied).
    mutating func register(
        _ session: SessionID, on reader: ReaderID, ifCurrent generation: OwnershipGeneration?, isCollect: Bool, reboot: Bool,
        deadline: ContinuousClock.Instant
    ) -> CommandKey? {
        guard let index = links.index(forKey: reader) else { return nil }
        if let generation, links.values[index].knownGeneration > generation { return nil }
        let id = links.values[index].nextCommandID
        links.values[index].nextCommandID += 1
        links.values[index].pending[id] = PendingCommand(session: session, isCollect: isCollect, deadline: deadline)
        if reboot { links.values[index].rebootRequested = true }
        return CommandKey(link: links.values[index].id, command: id)
    }

    /// The reader answered command `commandID` on link `link`: the command to complete
    /// (nil when it already ended). An answer on the current link restarts its bound. Ids
    /// are the link's own (a new link numbers from 1 again): an answer arriving late on a
    /// replaced link is for that link's command, which ended with it, never for the current
    /// link's command of the same id.
    public mutating func commandAnswered(_ reader: ReaderID, link: LinkID, commandID: UInt64, now: ContinuousClock.Instant) -> CommandKey? {
        guard let index = links.index(forKey: reader), links.values[index].id == link else { return nil }
        links.values[index].lastHeartbeat = now
        guard links.values[index].pending.removeValue(forKey: commandID) != nil else { return nil }
        return CommandKey(link: links.values[index].id, command: commandID)
    }

    /// What the reader's home says to a command relayed by another replica.
    public enum ReplicaRelayFence: Hashable, Sendable {
        /// The link of that epoch is here and the generation is current: dispatch it.
        case accepted
        /// This replica does not hold the reader's link of that epoch.
        case linkMoved
        /// A newer owner was seen here: the relaying session lost the reader.
        case staleGeneration
    }

    /// A command relayed from a session on another replica, naming the link's `epoch` and
    /// the `generation` its session owns the reader at (the newest seen is kept).
    public mutating func replicaRelayRequested(_ reader: ReaderID, epoch: LinkEpoch, generation: OwnershipGeneration) -> ReplicaRelayFence {
        guard let index = links.index(forKey: reader), links.values[index].epoch == epoch else { return .linkMoved }
        if generation < links.values[index].knownGeneration { return .staleGeneration }
        links.values[index].knownGeneration = generation
        return .accepted
    }
}
