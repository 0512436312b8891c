import GatewayDomain
import GatewayPostgres
import GatewayRegistry
import GatewayRepositories
import GatewayWire

extension ClusterFollower {
    /// Follows ownership changes made anywhere in the cluster (NOTIFY on
    /// `reader_gateway_ownership`), until cancelled. A notice is only a hint:
    /// what it concerns here is re-read from the rows and applied, and the
    /// rows are re-read whole after the listener reconnects.
    func runNotices() async {
        await notices.follow(OwnershipNotice.channel, subscribed: { await self.reconcile() }) { notification in
            if notification.isResubscription {
                await self.reconcile()
            } else if let notice = OwnershipNotice(payload: notification.payload) {
                await self.handle(notice)
            }
        }
    }

    /// Applies a notice that concerns this replica (a link here, or a session
    /// here that owns the reader); others are dropped without a query.
    func handle(_ notice: OwnershipNotice) async {
        let me = node.id
        let concerned = registry.noticeReceived(notice.reader, generation: notice.generation, session: notice.session, epoch: notice.epoch, node: notice.node, me: me)
        guard concerned else { return }
        await refresh(notice.reader)
    }

    /// Re-reads one reader's row and applies it (after a notice, or when a peer
    /// refused a command of a session here as stale: its event must come first). False
    /// when the row could not be read (the store is unavailable): nothing was applied.
    @discardableResult
    func refresh(_ reader: ReaderID) async -> Bool {
        do {
            for row in try await cluster.ownershipSnapshot([reader]) { await apply(row) }
            return true
        } catch {
            logger.warning("could not read an ownership change; the next reconcile will", ["reader": reader, "error": error])
            return false
        }
    }

    /// Compares every reader this replica cares about (links here, readers its
    /// sessions own) with the rows, and applies what changed (after the listener
    /// (re)subscribed: notices may have been missed meanwhile).
    func reconcile() async {
        await reconcile(registry.readersOfInterest)
    }

    /// Compares `readers` with their rows and applies what changed (the periodic
    /// comparison passes over the readers of interest in turns; see `runMembership`).
    func reconcile(_ readers: [ReaderID]) async {
        guard !readers.isEmpty else { return }
        do {
            for snapshot in try await cluster.ownershipSnapshot(readers) { await apply(snapshot) }
        } catch {
            logger.warning("could not reconcile ownership with the store", ["error": error])
        }
    }

    /// Brings memory in line with one reader's row (see
    /// `ReaderRegistry.ownershipChanged(_:me:)`), then tells each session here that lost
    /// the reader why, as the history says. A row behind what this replica knows (the store
    /// went back in time) is repaired first, and the repaired row applied.
    func apply(_ snapshot: OwnershipSnapshot) async {
        var row = Self.row(snapshot)
        if let rollback = registry.storeRollback(of: row), let repaired = await repair(rollback) {
            row = Self.row(repaired)
        }
        await apply(row)
    }

    static func row(_ snapshot: OwnershipSnapshot) -> OwnershipRow {
        OwnershipRow(
            reader: snapshot.reader, generation: snapshot.generation, session: snapshot.session, laneLabel: snapshot.laneLabel,
            epoch: snapshot.epoch, node: snapshot.node
        )
    }

    func apply(_ row: OwnershipRow) async {
        let me = node.id
        let (displaced, linkDropped) = registry.ownershipChanged(row, me: me)
        if linkDropped { metrics.readersOnline.unlabeled.decrement() }
        for session in displaced {
            let found = await followUp("reading who displaced a session", leaves: "the displaced session is told without the reason and the taking lane") {
                try await displacements.displacement(of: session.session.rawValue, from: row.reader.rawValue, after: session.generation.rawValue)
            } ?? nil
            let nowUnixMs = registry.clock.nowUnixMs
            // The event first, then the failures of the commands the change interrupted.
            registry.sessionDisplaced(
                session, reason: found?.reason, takenByLane: found?.takenByLane, takenByPosDeviceID: found?.takenByPosDeviceID, nowUnixMs: nowUnixMs
            )
        }
    }
}
