import GatewayDomain
import GatewayWire

extension ReaderRegistry {
    /// A new Attach call: its link id (before the reader is known or registered).
    public mutating func linkStarted() -> LinkID {
        defer { nextLinkID += 1 }
        return LinkID(nextLinkID)
    }

    /// What replacing a live link with a second attach of the same reader did.
    public struct Reattached: Hashable, Sendable {
        /// The replaced link (end its call).
        public var replaced: LinkID
        /// The epoch the link keeps (the store's attach is not repeated: the owner keeps the reader).
        public var epoch: LinkEpoch
        /// Commands that were running on the replaced link.
        public var failed: [CommandKey]

        public init(replaced: LinkID, epoch: LinkEpoch, failed: [CommandKey]) {
            self.replaced = replaced
            self.epoch = epoch
            self.failed = failed
        }
    }

    /// A second link of a reader whose link is live here: the new one takes its place at
    /// once, keeping epoch, owner and generation; commands on the old one fail, and a reboot
    /// asked of the old one is over (the reader is back: the new link's own loss is no
    /// reboot). Nil when the reader has no link here (the store must record the attach).
    public mutating func linkReattached(
        _ reader: ReaderID, link: LinkID, described: ReaderGatewayV1.Reader, status: LinkStatus, now: ContinuousClock.Instant
    ) -> Reattached? {
        guard var existing = links[reader] else { return nil }
        let old = existing.id
        let failed = existing.pending.keys.sorted().map { CommandKey(link: old, command: $0) }
        existing.id = link
        existing.described = described
        existing.status.ipAddress = status.ipAddress
        existing.status.softwareVersion = status.softwareVersion
        existing.lastHeartbeat = now
        existing.pending = [:]
        existing.rebootRequested = false
        links[reader] = existing
        return Reattached(replaced: old, epoch: existing.epoch, failed: failed)
    }

    /// The store recorded the attach at `epoch`: the link is online here. A link that got
    /// in between is replaced (its call ends, its commands fail) — unless the store recorded
    /// that link's attach after this one's (a higher epoch: the reader dialled again while this
    /// attach waited, and the answers came back in the other order). Then this link is the
    /// stale one: it is closed as replaced and the newer link stays.
    public mutating func linkAttached(
        _ reader: ReaderID, link: LinkID, epoch: LinkEpoch, described: ReaderGatewayV1.Reader, status: LinkStatus,
        now: ContinuousClock.Instant
    ) -> [RegistryAction] {
        let previous = links[reader]
        if let previous, previous.epoch > epoch { return [.closeLink(link, .replaced)] }
        links[reader] = RegistryLink(id: link, reader: reader, epoch: epoch, described: described, status: status, lastHeartbeat: now)
        guard let previous else { return [] }
        var actions: [RegistryAction] = previous.pending.keys.sorted().map { .failCommand(CommandKey(link: previous.id, command: $0), .readerReattached) }
        actions.append(.closeLink(previous.id, .replaced))
        return actions
    }

    /// Tells a link that just came up who owns its reader, if a session here does.
    public func ownerAnnouncement(for reader: ReaderID) -> RegistryAction? {
        guard let link = links[reader], let owner = owner(of: reader) else { return nil }
        return .tellOwner(link.id, lane: owner.lane.rawValue, generation: owner.generation)
    }

    /// What a heartbeat changed.
    public enum HeartbeatResult: Equatable, Sendable {
        /// Nothing to tell anyone (same status, or nobody to tell).
        case none
        /// The owner here hears the new status (send when not nil: it may be buffered).
        case tellOwner(RegistryAction?)
        /// The owner is on another replica: announce the status to the cluster.
        case announce(LinkStatus)
    }

    /// A heartbeat on the reader's current link: its bound restarts at `now`, a changed
    /// status goes to the owner (here, or announced when the reader has had an owner elsewhere).
    public mutating func heartbeat(
        _ reader: ReaderID, link: LinkID, activity: ReaderGatewayV1.ReaderActivity, batteryLevel: Float?, ipAddress: String,
        now: ContinuousClock.Instant, nowUnixMs: Int64
    ) -> HeartbeatResult {
        // Changed in place, through one inout access: a copy of the link (its described
        // reader's strings, its table of commands) taken out and written back, or read field
        // by field through `links.values[index]` (each read a copy), cost more than the rest
        // of the heartbeat.
        guard let index = links.index(forKey: reader),
              Self.heartbeat(on: &links.values[index], link: link, activity: activity, batteryLevel: batteryLevel, ipAddress: ipAddress, now: now)
        else { return .none }
        let current = links.values[index]
        guard let owner = owner(of: reader) else {
            // The owner, if the reader has ever had one (its generation moved on), is on
            // another replica: announce it.
            return current.knownGeneration > .initial ? .announce(current.status) : .none
        }
        return .tellOwner(deliver(.statusChanged(described: current.described, status: current.status), toSessionAt: owner.token, nowUnixMs: nowUnixMs))
    }

    /// A heartbeat on `current` if it is link `link`: its silence restarts at `now`; true when
    /// the heartbeat changed its status (which it then holds).
    private static func heartbeat(
        on current: inout RegistryLink, link: LinkID, activity: ReaderGatewayV1.ReaderActivity, batteryLevel: Float?, ipAddress: String,
        now: ContinuousClock.Instant
    ) -> Bool {
        guard current.id == link else { return false }
        current.lastHeartbeat = now
        // An unspecified activity or an empty address keeps what the link has: neither is a change.
        let newActivity = activity == .unspecified ? current.status.activity : activity
        let addressChanged = !ipAddress.isEmpty && current.status.ipAddress != ipAddress
        guard current.status.activity != newActivity || current.status.batteryLevel != batteryLevel || addressChanged else { return false }
        current.status.activity = newActivity
        current.status.batteryLevel = batteryLevel
        if addressChanged { current.status.ipAddress = ipAddress }
        return true
    }

    /// The reader reported update progress: its owner here hears it.
    public mutating func updateProgress(_ reader: ReaderID, progress: Float, nowUnixMs: Int64) -> RegistryAction? {
        guard let owner = owner(of: reader) else { return nil }
        return deliver(.updateProgress(reader: reader, progress: progress), toSessionAt: owner.token, nowUnixMs: nowUnixMs)
    }

    /// A reader's status announced by its home replica: for the owner here of a reader
    /// whose link is elsewhere (a link here delivers its own). Nil: nobody here to tell.
    public func remoteStatusRecipient(_ reader: ReaderID) -> RegistrySession? {
        links[reader] == nil ? owner(of: reader) : nil
    }

    /// Delivers a status announced by another replica to `session`, if it still holds `reader`.
    public mutating func remoteStatusReceived(
        _ status: ReaderGatewayV1.ReaderStatusChanged, reader: ReaderID, session: SessionID, nowUnixMs: Int64
    ) -> RegistryAction? {
        guard let token = tokens[session], sessions[token]?.reader == reader else { return nil }
        return deliver(.remoteStatus(status), toSessionAt: token, nowUnixMs: nowUnixMs)
    }

    /// A link that ended and was still the reader's current one.
    public struct EndedLink: Hashable, Sendable {
        public var epoch: LinkEpoch
        /// RebootReader was relayed: the loss is a reboot (the reader stays in
        /// ``rebootingReaders`` until ``rebootReported(_:)``).
        public var rebootRequested: Bool
        /// Commands that were running (fail them: the reader is offline).
        public var failed: [CommandKey]

        public init(epoch: LinkEpoch, rebootRequested: Bool, failed: [CommandKey]) {
            self.epoch = epoch
            self.rebootRequested = rebootRequested
            self.failed = failed
        }
    }

    /// The link's Attach call ended (closed, lost, timed out). Nil when a newer link took
    /// over (nothing to record).
    public mutating func linkEnded(_ reader: ReaderID, link: LinkID) -> EndedLink? {
        guard let ended = links[reader], ended.id == link else { return nil }
        links[reader] = nil
        if ended.rebootRequested { rebootingReaders.insert(reader) }
        let failed = ended.pending.keys.sorted().map { CommandKey(link: link, command: $0) }
        return EndedLink(epoch: ended.epoch, rebootRequested: ended.rebootRequested, failed: failed)
    }

    /// The loss of a rebooted reader is recorded and applied.
    public mutating func rebootReported(_ reader: ReaderID) {
        rebootingReaders.remove(reader)
    }

    /// What the sweep found at `now`.
    public struct TickResult: Hashable, Sendable {
        /// Links silent past the bound: close them (their end is then reported as a loss).
        public var silentLinks: [LinkID] = []
        /// Commands past their deadline, forgotten: fail them with READER_TIMEOUT.
        public var expiredCommands: [CommandKey] = []
    }

    /// The periodic sweep: links without a heartbeat for longer than `heartbeatBound`, and
    /// commands past their deadline. Walks the links, never the sessions.
    public mutating func tick(now: ContinuousClock.Instant, heartbeatBound: Duration) -> TickResult {
        var result = TickResult()
        for reader in links.keys {
            let link = links[reader]!
            if now - link.lastHeartbeat > heartbeatBound { result.silentLinks.append(link.id) }
            guard link.pending.values.contains(where: { $0.deadline <= now }) else { continue }
            for (id, command) in link.pending where command.deadline <= now {
                result.expiredCommands.append(CommandKey(link: link.id, command: id))
                links[reader]!.pending[id] = nil
            }
        }
        return result
    }

    /// Every link's bound restarts at `now` (this process was paused: the silence is its own).
    public mutating func silenceForgiven(now: ContinuousClock.Instant) {
        for reader in links.keys { links[reader]!.lastHeartbeat = now }
    }

    /// What fencing this replica off dropped.
    public struct Fenced: Sendable {
        /// The links dropped (end their calls; detach them in the store, fenced by epoch).
        public var links: [(id: LinkID, reader: ReaderID, epoch: LinkEpoch)]
        public var sessionCount: Int
        /// Fail these commands, end these streams and links.
        public var actions: [RegistryAction]
    }

    /// The others declared this replica dead: every link and session is dropped from memory
    /// without a store write (readers re-attach and keep their owners, lanes resume).
    public mutating func fenced() -> Fenced {
        var actions: [RegistryAction] = []
        var dropped: [(id: LinkID, reader: ReaderID, epoch: LinkEpoch)] = []
        for link in links.values {
            dropped.append((link.id, link.reader, link.epoch))
            for id in link.pending.keys.sorted() { actions.append(.failCommand(CommandKey(link: link.id, command: id), .replicaFenced)) }
            actions.append(.closeLink(link.id, .replicaFenced))
        }
        for session in sessions.values {
            if let stream = session.stream { actions.append(streamEnded(stream, of: session.token, on: session.streamConnection, .replicaFenced)) }
        }
        let sessionCount = sessions.count
        links.removeAll()
        sessions.removeAll()
        tokens.removeAll()
        holders.removeAll()
        sessionsByConnection.removeAll()
        return Fenced(links: dropped, sessionCount: sessionCount, actions: actions)
    }
}
