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
        // The session is read and changed in place, through `inout` (a read through the getter
        // of `values[index]` copies the whole session: every field retained, then released).
        switch Self.relayGate(&sessions.values[index], connection: connection, now: now, lease: lease) {
        case .leaseExpired: return .refused(.sessionUnknown)
        // A connection the session is not bound to adopts it from its row first (see `sessionUsed`).
        case .unbound: return .unknownSession
        case .open: break
        }
        attach(at: index, token: token, connection: connection, nowUnixMs: nowUnixMs)
        let owned: OwnedReader
        switch Self.takeOwnedReader(&sessions.values[index]) {
        case .refusal(let refusal): return .refused(.refusal(refusal))
        case .notConnected: return .refused(.notConnected)
        case .owned(let found): owned = found
        }
        if cancelsCollect, let decision = cancelMeetsCollect(at: index, owned, deadline: deadline) { return decision }
        // The link too is reached by its index, in place (`links[reader]` would copy it).
        guard let link = links.index(forKey: owned.reader) else { return .remote(owned) }
        guard let key = Self.register(owned.session, on: &links.values[link], ifCurrent: owned.generation, isCollect: false, reboot: reboot, deadline: deadline)
        else {
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
        return Self.register(session, on: &links.values[index], ifCurrent: generation, isCollect: isCollect, reboot: reboot, deadline: deadline)
    }

    /// ``register(_:on:ifCurrent:isCollect:reboot:deadline:)`` on the link, changed in place.
    private static func register(
        _ session: SessionID, on link: inout RegistryLink, ifCurrent generation: OwnershipGeneration?, isCollect: Bool, reboot: Bool,
        deadline: ContinuousClock.Instant
    ) -> CommandKey? {
        if let generation, link.knownGeneration > generation { return nil }
        let id = link.nextCommandID
        link.nextCommandID += 1
        link.pending[id] = PendingCommand(session: session, isCollect: isCollect, deadline: deadline)
        if reboot { link.rebootRequested = true }
        return CommandKey(link: link.id, command: id)
    }

    /// The reader answered command `commandID` on link `link`: the command to complete
    /// (nil when it already ended). An answer on the current link restarts its bound. Ids
    /// are the link's own (a new link numbers from 1 again): an answer arriving late on a
    /// replaced link is for that link's command, which ended with it, never for the current
    /// link's command of the same id.
    public mutating func commandAnswered(_ reader: ReaderID, link: LinkID, commandID: UInt64, now: ContinuousClock.Instant) -> CommandKey? {
        guard let index = links.index(forKey: reader) else { return nil }
        return Self.commandAnswered(on: &links.values[index], link: link, commandID: commandID, now: now)
    }

    /// ``commandAnswered(_:link:commandID:now:)`` on the reader's link, read and changed in place.
    private static func commandAnswered(on current: inout RegistryLink, link: LinkID, commandID: UInt64, now: ContinuousClock.Instant) -> CommandKey? {
        guard current.id == link else { return nil }
        current.lastHeartbeat = now
        guard current.pending.removeValue(forKey: commandID) != nil else { return nil }
        return CommandKey(link: link, command: commandID)
    }

    /// Whether a relay may use the session: its lease runs and it is bound to the connection.
    private enum RelayGate {
        case leaseExpired, unbound, open
    }

    private static func relayGate(_ session: inout RegistrySession, connection: UInt64, now: ContinuousClock.Instant, lease: Duration) -> RelayGate {
        if session.leaseExpired(at: now, lease: lease) { return .leaseExpired }
        return session.connections.contains(connection) ? .open : .unbound
    }

    /// What the session relays to: its reader, unless a refusal is armed (taken here) or it owns none.
    private enum Owned {
        case refusal(OwnershipRefusal)
        case notConnected
        case owned(OwnedReader)
    }

    private static func takeOwnedReader(_ session: inout RegistrySession) -> Owned {
        if let refusal = session.pendingRefusal {
            session.pendingRefusal = nil
            return .refusal(refusal)
        }
        guard let reader = session.reader else { return .notConnected }
        return .owned(OwnedReader(session: session.id, reader: reader, generation: session.generation, home: session.home))
    }

    /// Who a relayed command's event is about: the session's reader, account and id (nil: the
    /// session is not held here, or owns no reader). Nothing changes; `mutating` only so that
    /// the session is read in place, not copied whole for three fields.
    public mutating func commandEventSubject(token: String) -> (reader: ReaderID, account: String, session: SessionID)? {
        guard let index = sessions.index(forKey: token) else { return nil }
        return Self.eventSubject(&sessions.values[index])
    }

    private static func eventSubject(_ session: inout RegistrySession) -> (reader: ReaderID, account: String, session: SessionID)? {
        guard let reader = session.reader else { return nil }
        return (reader, session.accountID, session.id)
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
