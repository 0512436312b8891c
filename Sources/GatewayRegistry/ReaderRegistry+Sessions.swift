import GatewayDomain
import GatewayWire

extension ReaderRegistry {
    /// A session opened here (OpenSession).
    public mutating func sessionOpened(_ session: RegistrySession) {
        insert(session)
    }

    /// What adopting a session from its row did here.
    public struct Adoption: Sendable {
        /// The session as held here now.
        public var session: RegistrySession
        /// Whether this replica held no copy of it before.
        public var isNew: Bool
        /// What the shell performs: the stream of a stale copy ends.
        public var actions: [RegistryAction]
    }

    /// A session adopted from its row (`resumed`, at the row's new epoch) on the connection
    /// `resumed` names. The row is the truth; what this replica already held decides how
    /// much of memory survives:
    /// - no copy: the row's copy is held;
    /// - a copy one epoch older (nobody adopted the session since it was made): memory is
    ///   the row's truth and more (buffered events, a discovery running, the cached home),
    ///   so it is kept at the new epoch (a stream on another connection than the adopting
    ///   one ends: the lane left that connection); a reader the row gives at a newer
    ///   generation than memory's replaces memory's, and a loss memory has not heard of yet
    ///   is the shell's to re-read (``OwnershipRow``s of both readers);
    /// - an older copy (another replica or connection adopted the session meanwhile): it is
    ///   stale and is replaced whole by the row's, its stream ending and its buffered
    ///   events dropped;
    /// - a copy at the same or a newer epoch (a concurrent adoption here got there first):
    ///   kept, with this connection bound to it.
    /// Buffered `disconnected` events of an earlier generation of the reader the session
    /// now holds are dropped: they are not true any more.
    public mutating func sessionAdopted(_ resumed: RegistrySession) -> Adoption {
        let token = resumed.token
        guard let existing = sessions[token] else {
            insert(resumed)
            return Adoption(session: sessions[token]!, isNew: true, actions: [])
        }
        var actions: [RegistryAction] = []
        if existing.epoch == resumed.epoch - 1 {
            sessions[token]!.epoch = resumed.epoch
            if let stream = existing.stream, let carrier = existing.streamConnection, !resumed.connections.contains(carrier) {
                // The lane came back on another connection: the old one's stream is over (the
                // lane left it), and events wait for the subscription on the new one.
                actions.append(streamEnded(stream, of: token, on: carrier, .sessionMoved))
                sessions[token]!.stream = nil
                sessions[token]!.streamConnection = nil
            }
            if let reader = resumed.reader, resumed.generation > existing.generation {
                setReader(reader, ofSessionAt: token)
                sessions[token]!.generation = resumed.generation
                sessions[token]!.home = nil
                sessions[token]!.pendingRefusal = nil
            }
        } else if existing.epoch < resumed.epoch {
            if let stream = existing.stream {
                let carrier = existing.streamConnection.flatMap { resumed.connections.contains($0) ? nil : $0 }
                actions.append(streamEnded(stream, of: token, on: carrier, .sessionMoved))
            }
            setReader(nil, ofSessionAt: token)
            unindexConnections(of: token)
            var replacement = resumed
            replacement.nextSequence = existing.nextSequence
            insert(replacement)
        }
        for connection in resumed.connections { attach(token, connection: connection, nowUnixMs: resumed.lastSeenUnixMs) }
        dropObsoleteEvents(ofSessionAt: token)
        return Adoption(session: sessions[token]!, isNew: false, actions: actions)
    }

    /// The action ending a session's stream carried by `connection` as `ending` says; when the
    /// ending asks the lane to resume, the session's later calls on that connection fail the
    /// same way until it resumes there (``resumeRequired(_:on:)``).
    mutating func streamEnded(_ stream: EventStreamID, of token: String, on connection: UInt64?, _ ending: StreamEnding) -> RegistryAction {
        if let connection, ending != .sessionEnded { resumeRequired[connection, default: [:]][token] = ending }
        return .endStream(stream, ending)
    }

    /// Why the session's calls on `connection` must resume first: this replica ended its
    /// stream there asking for a resume (fenced off, or the session moved), and no
    /// `OpenSession(resume)` came on that connection since. Nil: nothing stands in the way.
    public func resumeRequired(_ token: String, on connection: UInt64) -> StreamEnding? {
        resumeRequired[connection]?[token]
    }

    /// `OpenSession(resume)` of the session arrived on `connection`: its calls there are
    /// answered again.
    public mutating func sessionResuming(_ token: String, on connection: UInt64) {
        guard resumeRequired[connection]?.removeValue(forKey: token) != nil else { return }
        if resumeRequired[connection]?.isEmpty == true { resumeRequired[connection] = nil }
    }

    /// Drops buffered `disconnected` events of the session's current reader from generations
    /// before the one it holds it at (it took the reader again since).
    private mutating func dropObsoleteEvents(ofSessionAt token: String) {
        guard let reader = sessions[token]?.reader, let generation = sessions[token]?.generation else { return }
        sessions[token]!.bufferedEvents.removeAll { event in
            guard let lost = event.loss else { return false }
            return lost.reader == reader && lost.generation < generation
        }
    }

    /// Another replica (or connection) adopted the session at `epoch`: a copy held here at an
    /// older epoch is stale and is dropped (its stream ends with SESSION_MOVED). Returns the
    /// dropped copy and the actions, nil when nothing was dropped.
    public mutating func sessionMoved(_ id: SessionID, epoch: Int64) -> (session: RegistrySession, actions: [RegistryAction])? {
        guard let token = tokens[id], let held = sessions[token], held.epoch < epoch else { return nil }
        return drop(token, ending: .sessionMoved)
    }

    /// The lease renewal found these copies' rows moved on (adopted elsewhere at a newer epoch,
    /// or closed): each copy still at the epoch it was renewed at is dropped. Returns the
    /// dropped copies and the actions.
    public mutating func sessionsNotRenewed(_ copies: [SessionEpoch]) -> (sessions: [RegistrySession], actions: [RegistryAction]) {
        var dropped: [RegistrySession] = []
        var actions: [RegistryAction] = []
        for copy in copies {
            guard let token = tokens[copy.id], sessions[token]?.epoch == copy.epoch,
                  let (session, ending) = drop(token, ending: .sessionMoved) else { continue }
            dropped.append(session)
            actions += ending
        }
        return (dropped, actions)
    }

    private mutating func insert(_ session: RegistrySession) {
        let token = session.token
        sessions[token] = session
        sessions[token]!.reader = nil
        tokens[session.id] = token
        for connection in session.connections { sessionsByConnection[connection, default: []].insert(token) }
        setReader(session.reader, ofSessionAt: token)
    }

    /// A call of the session arrived on `connection`: the session, marked as used, or nil
    /// when it is not held here or its lease ran out while detached.
    ///
    /// Memory answers only on a connection already bound to the session (it opened or
    /// adopted the session, or carried its calls since): a call on any other connection is
    /// the lane coming back, perhaps from another replica, and the shell adopts the session
    /// from its row (nil here) so that nothing is answered from a copy the row has moved past.
    public mutating func sessionUsed(
        _ token: String, connection: UInt64, now: ContinuousClock.Instant, nowUnixMs: Int64, lease: Duration
    ) -> RegistrySession? {
        // Reached once through its index and changed in place: the only copy of the session
        // is the one returned (each copy retains and releases its strings and sets).
        guard let index = sessions.index(forKey: token),
              sessionField(at: index, { $0.connections.contains(connection) && !$0.leaseExpired(at: now, lease: lease) })
        else {
            return nil
        }
        attach(at: index, token: token, connection: connection, nowUnixMs: nowUnixMs)
        return sessions.values[index]
    }

    /// What a new event stream of a session starts with.
    public struct Subscription: Equatable, Sendable {
        /// The new stream's id (the shell files its call under it).
        public var stream: EventStreamID
        /// The stream the new one replaces: end it.
        public var replaced: EventStreamID?
        /// The loss the session has not acted on yet, told again (it went to a stream the lane
        /// may have left): send it before anything else. Its sequence number is an earlier
        /// one; the stream's order starts at ``firstSequence`` all the same.
        public var retold: SessionNotice?
        /// Events buffered while no stream was live, oldest first: send them first.
        public var buffered: [SessionNotice]
        /// The sequence number the new stream delivers first.
        public var firstSequence: UInt64
    }

    /// A `SubscribeEvents` call of the session arrived on `connection`. Nil: no such session.
    public mutating func sessionSubscribed(_ token: String, connection: UInt64) -> Subscription? {
        guard sessions[token] != nil else { return nil }
        let stream = EventStreamID(nextStreamID)
        nextStreamID += 1
        attach(token, connection: connection, nowUnixMs: nil)
        let replaced = sessions[token]!.stream
        sessions[token]!.stream = stream
        sessions[token]!.streamConnection = connection
        let buffered = sessions[token]!.bufferedEvents
        sessions[token]!.bufferedEvents.removeAll()
        // A loss not acted on yet is told again: the stream it went to may be one the lane left.
        var retold: SessionNotice?
        if sessions[token]!.pendingRefusal != nil, let loss = sessions[token]!.lastLoss, !buffered.contains(where: { $0.sequence == loss.sequence }) {
            retold = loss
        }
        let first = buffered.first?.sequence ?? sessions[token]!.nextSequence
        return Subscription(stream: stream, replaced: replaced, retold: retold, buffered: buffered, firstSequence: first)
    }

    /// The stream ended from the peer's side (cancel, connection lost): events buffer again.
    public mutating func subscriptionEnded(_ token: String, stream: EventStreamID) {
        if sessions[token]?.stream == stream {
            sessions[token]!.stream = nil
            sessions[token]!.streamConnection = nil
        }
    }

    /// The shell found the stream an event was queued for already finished: the stream is
    /// forgotten and the event buffered (in sequence order) for the next subscription.
    public mutating func eventUndelivered(_ event: SessionNotice, stream: EventStreamID, session: SessionID) {
        guard let token = tokens[session] else { return }
        subscriptionEnded(token, stream: stream)
        var buffered = sessions[token]!.bufferedEvents
        let index = buffered.firstIndex { $0.sequence > event.sequence } ?? buffered.endIndex
        buffered.insert(event, at: index)
        if buffered.count > Self.bufferedEventLimit { buffered.removeFirst() }
        sessions[token]!.bufferedEvents = buffered
    }

    /// A connection closed: sessions whose last connection it was are detached now
    /// (their lease starts running). Costs the sessions of that connection only.
    public mutating func connectionClosed(_ connection: UInt64, now: ContinuousClock.Instant) {
        resumeRequired[connection] = nil
        guard let carried = sessionsByConnection.removeValue(forKey: connection) else { return }
        for token in carried where sessions[token] != nil {
            sessions[token]!.connections.remove(connection)
            if sessions[token]!.connections.isEmpty { sessions[token]!.detachedSince = now }
        }
    }

    /// Every session is detached at `now` (the replica drains: their leases run in the
    /// store). Returns the ids of the sessions handed back.
    public mutating func allSessionsDetached(now: ContinuousClock.Instant) -> [SessionID] {
        sessionsByConnection.removeAll()
        var ids: [SessionID] = []
        for token in sessions.keys {
            sessions[token]!.connections.removeAll()
            if sessions[token]!.detachedSince == nil { sessions[token]!.detachedSince = now }
            ids.append(sessions[token]!.id)
        }
        return ids
    }

    /// The session is over here (closed, or its lease ran out): forgotten, its stream ends.
    /// Nil when it was not held.
    public mutating func sessionEnded(_ token: String) -> (session: RegistrySession, actions: [RegistryAction])? {
        drop(token, ending: .sessionEnded)
    }

    /// Forgets the session held at `token`; its stream ends as `ending` says.
    private mutating func drop(_ token: String, ending: StreamEnding) -> (session: RegistrySession, actions: [RegistryAction])? {
        guard sessions[token] != nil else { return nil }
        setReader(nil, ofSessionAt: token)
        unindexConnections(of: token)
        let session = sessions.removeValue(forKey: token)!
        tokens[session.id] = nil
        return (session, session.stream.map { [streamEnded($0, of: token, on: session.streamConnection, ending)] } ?? [])
    }

    /// The sessions to renew (attached) and to end (detached past `lease`) at `now`.
    /// The periodic sweep walks every session: the renewal names them all.
    public func leaseSweep(now: ContinuousClock.Instant, lease: Duration) -> (attached: [SessionEpoch], expired: [String]) {
        var attached: [SessionEpoch] = []
        var expired: [String] = []
        for session in sessions.values {
            if session.detachedSince != nil {
                if session.leaseExpired(at: now, lease: lease) { expired.append(session.token) }
            } else {
                attached.append(SessionEpoch(id: session.id, epoch: session.epoch))
            }
        }
        return (attached, expired)
    }

    /// The sessions of `account` (in `location`'s scope when given), oldest first.
    public func sessions(of account: String, location: String?) -> [RegistrySession] {
        sessions.values.filter { $0.accountID == account && (location == nil || $0.locationScope == location) }
            .sorted { $0.openedAtUnixMs < $1.openedAtUnixMs }
    }

    /// The refusal a displaced session's next command fails with, consumed.
    public mutating func takePendingRefusal(of session: SessionID) -> OwnershipRefusal? {
        guard let token = tokens[session], let refusal = sessions[token]?.pendingRefusal else { return nil }
        sessions[token]!.pendingRefusal = nil
        return refusal
    }

    /// Whether the session still owns `reader` at `generation` in memory.
    public func holds(_ reader: ReaderID, session: SessionID, at generation: OwnershipGeneration) -> Bool {
        guard let live = self.session(id: session) else { return false }
        return live.reader == reader && live.generation == generation
    }

    /// The home the session last relayed to (nil: look it up).
    public func home(of session: SessionID) -> ReaderHomeCache? { self.session(id: session)?.home }

    /// A relay over the replica link reached `home`: cached while the session still holds `reader`.
    public mutating func homeLearned(_ home: ReaderHomeCache, session: SessionID, reader: ReaderID) {
        guard let token = tokens[session], sessions[token]?.reader == reader else { return }
        sessions[token]!.home = home
    }

    /// The cached home turned out wrong (moved, unreachable): look it up next time.
    public mutating func homeForgotten(session: SessionID) {
        guard let token = tokens[session], sessions[token] != nil else { return }
        sessions[token]!.home = nil
    }
}
