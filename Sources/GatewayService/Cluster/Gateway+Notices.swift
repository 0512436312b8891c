import GatewayDomain
import GatewayPostgres
import GatewayRepositories
import GatewayWire

extension Gateway {
    /// Follows ownership changes made anywhere in the cluster (NOTIFY on
    /// `reader_gateway_ownership`), until cancelled. A notice is only a hint:
    /// what it concerns here is re-read from the rows and applied, and the
    /// rows are re-read whole after the listener reconnects.
    func runNotices() async {
        await follow(OwnershipNotice.channel, listening: { await self.reconcile() }) { notification in
            if notification.isResubscription {
                await self.reconcile()
            } else if let notice = OwnershipNotice(payload: notification.payload) {
                await self.handle(notice)
            }
        }
    }

    /// LISTENs on `channel` until cancelled, listening again (after a second) whenever
    /// the store could not subscribe; `listening` runs each time the subscription is
    /// confirmed, `body` for every notification (resubscription markers included).
    func follow(
        _ channel: String,
        listening: () async -> Void = {},
        _ body: (PostgresNotification) async -> Void
    ) async {
        while !Task.isCancelled {
            let notifications: AsyncStream<PostgresNotification>
            do { notifications = try await database.client.listen(channel) } catch {
                try? await Task.sleep(for: .seconds(1))
                continue
            }
            await listening()
            for await notification in notifications { await body(notification) }
        }
    }

    /// Applies a notice that concerns this replica (a link here, or a session
    /// here that owns the reader); others are dropped without a query.
    func handle(_ notice: OwnershipNotice) async {
        let me = node.id
        let concerned = state.withLock { state -> Bool in
            var concerned = false
            if let index = state.links.index(forKey: notice.reader) {
                let (epoch, knownGeneration) = (state.links.values[index].epoch, state.links.values[index].knownGeneration)
                if Gateway.isSuperseded(epoch, here: me, by: notice.epoch, on: notice.node) || notice.generation > knownGeneration { concerned = true }
            }
            for (token, session) in state.sessions where session.reader == notice.reader {
                if session.id != notice.session, session.generation < notice.generation { concerned = true }
                if let home = session.home, home.epoch != notice.epoch { state.sessions[token]?.home = nil }
            }
            return concerned
        }
        guard concerned else { return }
        await refresh(notice.reader)
    }

    /// Re-reads one reader's row and applies it (after a notice, or when a peer
    /// refused a command of a session here as stale: its event must come first).
    func refresh(_ reader: ReaderID) async {
        do {
            for row in try await cluster.ownershipSnapshot([reader]) { await apply(row) }
        } catch {
            logger.warning("could not read an ownership change; the next reconcile will", ["reader": reader, "error": error])
        }
    }

    /// Compares every reader this replica cares about (links here, readers its
    /// sessions own) with the rows, and applies what changed.
    func reconcile() async {
        let readers = state.withLock { state in
            Array(Set(state.links.keys).union(state.sessions.values.compactMap(\.reader)))
        }
        guard !readers.isEmpty else { return }
        do {
            for snapshot in try await cluster.ownershipSnapshot(readers) { await apply(snapshot) }
        } catch {
            logger.warning("could not reconcile ownership with the store", ["error": error])
        }
    }

    /// Brings memory in line with one reader's row: a link here that a newer
    /// link (or a reaper) superseded is closed without a store write; commands
    /// of sessions that no longer own the reader are failed (an interrupted
    /// collect is cancelled on the reader); sessions here that lost the reader
    /// are told why, before their next command fails.
    func apply(_ row: OwnershipSnapshot) async {
        let me = node.id
        var superseded: ReaderLinkState?
        var stale: [PendingCommand] = []
        var cancelOn: ServerCall?
        var tellLane: String?
        var displaced: [(SessionID, OwnershipGeneration)] = []
        var rebooting = false
        state.withLock { state in
            rebooting = state.rebootingReaders.contains(row.reader)
            if let index = state.links.index(forKey: row.reader) {
                let link = state.links.values[index]
                if Gateway.isSuperseded(link.epoch, here: me, by: row.epoch, on: row.node) {
                    superseded = state.links.removeValue(forKey: row.reader)
                } else if row.epoch == link.epoch, row.generation > link.knownGeneration {
                    state.links.values[index].knownGeneration = row.generation
                    let old = link.pending.filter { $0.value.session != row.session }
                    for id in old.keys { state.links.values[index].pending[id] = nil }
                    stale = Array(old.values)
                    if stale.contains(where: \.isCollect) { cancelOn = link.call }
                    tellLane = row.laneLabel ?? ""
                }
            }
            for session in state.sessions.values where session.reader == row.reader {
                if session.id != row.session, session.generation < row.generation { displaced.append((session.id, session.generation)) }
            }
        }
        if let superseded {
            metrics.readersOnline.unlabeled.decrement()
            let moved = ServiceError(.readerLinkMoved, "the reader attached again elsewhere while the command ran; retry it")
            for pending in superseded.pending.values { pending.complete(.failed(moved)) }
            superseded.call.end(ServiceError(.readerLinkReplaced, "a newer link from the same reader replaced this one").status)
        }
        for pending in stale { pending.complete(.failed(.refusal(.connectedToAnotherSession))) }
        if let cancelOn { cancelOn.send(Gateway.downlink(.cancelCollect(.init()), id: 0, session: SessionID(""), timeout: .zero)) }
        if let tellLane { tellOwner(row.reader, lane: tellLane, generation: row.generation) }
        for (session, generation) in displaced {
            let found = try? await database.displacement(of: session.rawValue, from: row.reader.rawValue, after: generation.rawValue)
            var displacement = found ?? Displacement(reason: row.session == nil ? .readerLost : .replaced)
            // The reader went away because it was told to reboot: the history only says it was lost.
            if rebooting, displacement.reason == .readerLost { displacement = Displacement(reason: .rebootRequested) }
            displace(session, from: row.reader, had: generation, displacement)
        }
    }

    /// Tells a session here that it lost `reader` (it owned it at `generation`):
    /// the event first, then its next command fails with the matching refusal.
    func displace(_ session: SessionID, from reader: ReaderID, had generation: OwnershipGeneration, _ displacement: Displacement) {
        state.withLock { state in
            _ = state.withSession(id: session) { live in
                guard live.reader == reader, live.generation == generation else { return }
                let event = Gateway.disconnected(
                    reader: reader, reason: displacement.reason, generation: generation,
                    takenByLane: displacement.takenByLane, takenByPosDeviceID: displacement.takenByPosDeviceID
                )
                Gateway.deliver(.disconnected(event), to: &live)
                live.reader = nil
                live.home = nil
                live.pendingRefusal = switch displacement.reason {
                case .replaced: .connectedToAnotherSession
                case .readerLost, .rebootRequested: .readerOffline
                default: .notConnected
                }
            }
        }
    }

    /// Whether a link of `epoch` held here (node `me`) is superseded by what the store
    /// says, link `storeEpoch` on `node`: a newer link, or this epoch on another node (or on
    /// none: the reaper detached it).
    static func isSuperseded(_ epoch: LinkEpoch, here me: String, by storeEpoch: LinkEpoch, on node: String?) -> Bool {
        storeEpoch > epoch || (storeEpoch == epoch && node != me)
    }

    /// The `ReaderDisconnected` event a displaced session receives.
    static func disconnected(
        reader: ReaderID, reason: ReaderGatewayV1.DisconnectReason, generation: OwnershipGeneration,
        takenByLane: String?, takenByPosDeviceID: String?
    ) -> ReaderGatewayV1.ReaderDisconnected {
        var disconnected = ReaderGatewayV1.ReaderDisconnected()
        disconnected.readerID = reader.rawValue
        disconnected.reason = reason
        disconnected.generation = UInt64(max(0, generation.rawValue))
        if let takenByLane, reason == .replaced {
            disconnected.takenByLaneLabel = takenByLane
            disconnected.takenByPosDeviceID = takenByPosDeviceID ?? ""
            disconnected.message = "\(takenByLane) connected to the reader"
        } else {
            disconnected.message = Gateway.describe(reason)
        }
        return disconnected
    }
}

extension Displacement {
    init(reason: ReaderGatewayV1.DisconnectReason) {
        self.init(reason: reason, takenByLane: nil, takenByPosDeviceID: nil)
    }
}
