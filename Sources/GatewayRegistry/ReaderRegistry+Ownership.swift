import GatewayDomain
import GatewayWire

extension ReaderRegistry {
    /// The store granted `session` the reader at `generation` (ConnectReader): the session
    /// holds it (with the lane and device it connected as), the decision's actions are
    /// applied, and the reader is told its owner. Nil: the session is gone from memory.
    public mutating func readerClaimed(
        _ reader: ReaderID, by session: SessionID, generation: OwnershipGeneration, lane: LaneLabel, posDeviceID: String,
        actions: [OwnershipAction], nowUnixMs: Int64
    ) -> [RegistryAction]? {
        // The session is reached through its index and changed in place: a connect copies
        // no session (each copy of one retains and releases its strings and sets).
        guard let token = tokens[session], let index = sessions.index(forKey: token) else { return nil }
        setReader(reader, ofSessionAt: index, token: token)
        sessions.values[index].generation = generation
        sessions.values[index].home = nil
        sessions.values[index].pendingRefusal = nil
        sessions.values[index].lane = lane
        sessions.values[index].posDeviceID = posDeviceID
        var result = ownershipDecided(
            reader, generation: generation, actions: actions, reason: .replaced,
            taker: (session, lane.rawValue, posDeviceID), nowUnixMs: nowUnixMs
        )
        if let link = links.index(forKey: reader) { result.append(.tellOwner(linkField(at: link) { $0.id }, lane: lane.rawValue, generation: generation)) }
        return result
    }

    /// The session let go of `reader` (its disconnect or close reached the store, whatever
    /// the store answered): it no longer holds it here.
    public mutating func readerLetGo(_ reader: ReaderID, by session: SessionID) {
        guard let token = tokens[session], sessions[token]?.reader == reader else { return }
        setReader(nil, ofSessionAt: token)
    }

    /// The store released the reader at `generation` (disconnect, session expiry, admin
    /// release): the decision's actions are applied and the reader hears it has no owner.
    public mutating func readerReleased(
        _ reader: ReaderID, generation: OwnershipGeneration, actions: [OwnershipAction], reason: ReaderGatewayV1.DisconnectReason,
        nowUnixMs: Int64
    ) -> [RegistryAction] {
        var result = ownershipDecided(reader, generation: generation, actions: actions, reason: reason, nowUnixMs: nowUnixMs)
        if let link = links[reader] { result.append(.tellOwner(link.id, lane: "", generation: generation)) }
        return result
    }

    /// Applies an ownership decision of the store (made here, at `generation`) to memory:
    ///
    /// - a displaced session hears at once why (`reason`) and, when a session here took the
    ///   reader (`takenBy`), which lane and device took it; it no longer holds the reader;
    /// - its next command fails (an admin release reads "not connected": no other session
    ///   took the reader);
    /// - commands of the interrupted session are failed and the reader told to cancel;
    /// - other sessions here still holding the reader at an older generation lost it to
    ///   changes made on other replicas in between: they hear it as replaced by `takenBy`.
    ///
    /// Events come first in the returned actions, then the failures, then the cancel.
    public mutating func ownershipDecided(
        _ reader: ReaderID, generation: OwnershipGeneration, actions: [OwnershipAction], reason: ReaderGatewayV1.DisconnectReason,
        takenBy: SessionID? = nil, nowUnixMs: Int64
    ) -> [RegistryAction] {
        let taker = takenBy.flatMap { id in
            tokens[id].flatMap { sessions.index(forKey: $0) }.map { (id, sessions.values[$0].lane.rawValue, sessions.values[$0].posDeviceID) }
        }
        return ownershipDecided(reader, generation: generation, actions: actions, reason: reason, taker: taker, nowUnixMs: nowUnixMs)
    }

    /// ``ownershipDecided(_:generation:actions:reason:takenBy:nowUnixMs:)`` with the taking
    /// session's id, lane and device already known (the connect knows them: no lookup, no copy).
    mutating func ownershipDecided(
        _ reader: ReaderID, generation: OwnershipGeneration, actions: [OwnershipAction], reason: ReaderGatewayV1.DisconnectReason,
        taker: (id: SessionID, lane: String, posDeviceID: String)?, nowUnixMs: Int64
    ) -> [RegistryAction] {
        var events: [RegistryAction] = []
        var later: [RegistryAction] = []
        if let index = links.index(forKey: reader), linkField(at: index, { $0.knownGeneration }) < generation {
            links.values[index].knownGeneration = generation
        }
        for action in actions {
            switch action {
            case .notifyDisplaced(let displaced, _, _):
                guard let token = tokens[displaced], let index = sessions.index(forKey: token), sessionField(at: index, { $0.reader }) == reader else { continue }
                let event = ReaderLoss(
                    reader: reader, reason: reason, generation: OwnershipGeneration(max(0, generation.rawValue - 1)),
                    takenByLane: taker?.lane, takenByPosDeviceID: taker?.posDeviceID
                )
                if let send = deliver(.disconnected(event), toSessionAt: index, nowUnixMs: nowUnixMs) { events.append(send) }
                setReader(nil, ofSessionAt: index, token: token)
                sessions.values[index].home = nil
            case .failNextCommand(let displaced, let refusal):
                guard let token = tokens[displaced], let index = sessions.index(forKey: token) else { continue }
                sessions.values[index].pendingRefusal = reason == .adminReleased ? .notConnected : refusal
            case .cancelCommand(let command):
                guard let index = links.index(forKey: reader) else { continue }
                let link = links.values[index].id
                let interrupted = links.values[index].pending.filter { $0.value.session == command.session }.keys.sorted()
                for id in interrupted {
                    links.values[index].pending[id] = nil
                    later.append(.failCommand(CommandKey(link: link, command: id), .refusal(.connectedToAnotherSession)))
                }
                later.append(.cancelOnReader(link))
            case .recordHistory:
                break
            }
        }
        if let taker, let holding = holders[reader] {
            for token in holding {
                guard let index = sessions.index(forKey: token) else { continue }
                let (id, held) = sessionField(at: index) { ($0.id, $0.generation) }
                guard id != taker.id, held < generation else { continue }
                let event = ReaderLoss(
                    reader: reader, reason: .replaced, generation: held,
                    takenByLane: taker.lane, takenByPosDeviceID: taker.posDeviceID
                )
                if let send = deliver(.disconnected(event), toSessionAt: index, nowUnixMs: nowUnixMs) { events.append(send) }
                setReader(nil, ofSessionAt: index, token: token)
                sessions.values[index].home = nil
                sessions.values[index].pendingRefusal = .connectedToAnotherSession
            }
        }
        if later.isEmpty { return events }
        return events + later
    }

    /// A notice that `reader`'s row changed: whether it concerns this replica (a link here
    /// that is superseded or behind, a session here that lost the reader) and must be
    /// re-read. Cached homes of another epoch are forgotten on the way.
    public mutating func noticeReceived(_ reader: ReaderID, generation: OwnershipGeneration, session owner: SessionID?, epoch: LinkEpoch, node: String?, me: String) -> Bool {
        var concerned = false
        if let link = links[reader], Self.isSuperseded(link.epoch, here: me, by: epoch, on: node) || generation > link.knownGeneration {
            concerned = true
        }
        for token in holders[reader] ?? [] {
            guard let session = sessions[token] else { continue }
            if session.id != owner, session.generation < generation { concerned = true }
            if let home = session.home, home.epoch != epoch { sessions[token]!.home = nil }
        }
        return concerned
    }

    /// A session here that lost the reader per the store's row: the shell reads from the
    /// history why and who took it, then feeds ``sessionDisplaced(_:reason:takenByLane:takenByPosDeviceID:nowUnixMs:)``.
    public struct Displaced: Hashable, Sendable {
        public var session: SessionID
        public var reader: ReaderID
        /// The generation the session held the reader at.
        public var generation: OwnershipGeneration
        /// The reader was told to reboot: a loss is reported as the reboot.
        public var rebooting: Bool
        /// The row names a new owner (without a history row, the session was replaced;
        /// otherwise the reader was lost).
        public var taken: Bool
        /// Its commands on the reader's link here that the change interrupted: failed
        /// (`READER_CONNECTED_TO_ANOTHER_SESSION`) only after the session was told, so that
        /// it hears of the loss before any of its calls is refused for it.
        public var interrupted: [CommandKey]

        public init(
            session: SessionID, reader: ReaderID, generation: OwnershipGeneration, rebooting: Bool, taken: Bool, interrupted: [CommandKey] = []
        ) {
            self.interrupted = interrupted
            self.session = session
            self.reader = reader
            self.generation = generation
            self.rebooting = rebooting
            self.taken = taken
        }
    }

    /// Brings memory in line with one reader's row: a link here that a newer link (or a
    /// reaper) superseded is forgotten and closed, without a store write; commands of
    /// sessions that no longer own the reader fail (an interrupted collect is cancelled on
    /// the reader) and the reader hears its owner; sessions here that lost the reader are
    /// returned, to be told why.
    public mutating func ownershipChanged(_ row: OwnershipRow, me: String) -> (actions: [RegistryAction], displaced: [Displaced], linkDropped: Bool) {
        var actions: [RegistryAction] = []
        var linkDropped = false
        let rebooting = rebootingReaders.contains(row.reader)
        var displaced: [Displaced] = []
        for token in holders[row.reader] ?? [] {
            guard let session = sessions[token], session.id != row.session, session.generation < row.generation else { continue }
            displaced.append(Displaced(session: session.id, reader: row.reader, generation: session.generation, rebooting: rebooting, taken: row.session != nil))
        }
        displaced.sort { $0.session.rawValue < $1.session.rawValue }
        if let index = links.index(forKey: row.reader) {
            let link = links.values[index]
            if Self.isSuperseded(link.epoch, here: me, by: row.epoch, on: row.node) {
                links[row.reader] = nil
                linkDropped = true
                for id in link.pending.keys.sorted() { actions.append(.failCommand(CommandKey(link: link.id, command: id), .linkMovedAway)) }
                actions.append(.closeLink(link.id, .replaced))
            } else if row.epoch == link.epoch, row.generation > link.knownGeneration {
                links.values[index].knownGeneration = row.generation
                let stale = link.pending.filter { $0.value.session != row.session }
                for id in stale.keys.sorted() {
                    links.values[index].pending[id] = nil
                    let key = CommandKey(link: link.id, command: id)
                    // A session here that loses the reader is told first (see `Displaced.interrupted`).
                    if let told = displaced.firstIndex(where: { $0.session == stale[id]!.session }) {
                        displaced[told].interrupted.append(key)
                    } else {
                        actions.append(.failCommand(key, .refusal(.connectedToAnotherSession)))
                    }
                }
                if stale.values.contains(where: \.isCollect) { actions.append(.cancelOnReader(link.id)) }
                actions.append(.tellOwner(link.id, lane: row.laneLabel ?? "", generation: row.generation))
            }
        }
        return (actions, displaced, linkDropped)
    }

    /// Tells a session here that it lost the reader (if it still holds it at the
    /// generation it was found at): the event first, then its next command fails with the
    /// matching refusal. `reason` and the taker come from the history (nil reason: no row
    /// says). A loss while the reader was told to reboot is the reboot.
    public mutating func sessionDisplaced(
        _ displaced: Displaced, reason historyReason: ReaderGatewayV1.DisconnectReason?, takenByLane: String?, takenByPosDeviceID: String?,
        nowUnixMs: Int64
    ) -> RegistryAction? {
        guard let token = tokens[displaced.session], let session = sessions[token],
              session.reader == displaced.reader, session.generation == displaced.generation
        else { return nil }
        var reason = historyReason ?? (displaced.taken ? .replaced : .readerLost)
        var taker = (lane: takenByLane, posDevice: takenByPosDeviceID)
        if historyReason == nil { taker = (nil, nil) }
        if displaced.rebooting, reason == .readerLost {
            reason = .rebootRequested
            taker = (nil, nil)
        }
        let event = ReaderLoss(
            reader: displaced.reader, reason: reason, generation: displaced.generation,
            takenByLane: taker.lane, takenByPosDeviceID: taker.posDevice
        )
        let send = deliver(.disconnected(event), toSessionAt: token, nowUnixMs: nowUnixMs)
        setReader(nil, ofSessionAt: token)
        sessions[token]!.home = nil
        sessions[token]!.pendingRefusal = switch reason {
        case .replaced: .connectedToAnotherSession
        case .readerLost, .rebootRequested: .readerOffline
        default: .notConnected
        }
        return send
    }

    /// Whether a link of `epoch` held here (node `me`) is superseded by what the store
    /// says, link `storeEpoch` on `node`: a newer link, or this epoch on another node (or on
    /// none: the reaper detached it).
    public static func isSuperseded(_ epoch: LinkEpoch, here me: String, by storeEpoch: LinkEpoch, on node: String?) -> Bool {
        storeEpoch > epoch || (storeEpoch == epoch && node != me)
    }
}
