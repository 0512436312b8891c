import GatewayDomain
import GatewayRegistry
import GatewayRepositories

extension SdkService {
    /// Adopts the session whose resume token is `token` from its row, for the call's
    /// connection: the lane came back (after a dropped connection, a replica that died or
    /// drained, or a balancer that chose another replica) and this replica answers from
    /// the row, never from a copy the row may have moved past.
    ///
    /// The row's epoch grows by one under its lock and its reader and latest discovery are
    /// read in the same statement (``GatewayDatabase/adoptSession(token:node:lease:)``);
    /// the registry keeps or replaces what it held by comparing epochs
    /// (``ReaderRegistry/sessionAdopted(_:)``). The readers involved are then re-read and
    /// applied, so that a change made meanwhile (a takeover whose notice came before the
    /// session was held here) is not missed: the session hears of a loss before anything
    /// is answered. Returns nil when there is no open session with that token.
    func adoptSession(_ token: String, _ context: CallContext) async throws(ServiceError) -> RegistrySession? {
        let found: AdoptedSessionRecord?
        do { found = try await sessions.adoptSession(token: token, node: node.id, lease: configuration.sessionLease) } catch {
            throw ServiceError.store(error)
        }
        guard let row = found else { return nil }
        let held = registry.session(token: token)
        let session = RegistrySession(
            id: SessionID(row.id), token: token, accountID: row.accountID, locationScope: row.locationScope,
            posDeviceID: row.posDeviceID, lane: LaneLabel(row.laneLabel),
            // The discovery it answered last, wherever that was, stays its latest here.
            discovery: DiscoveryStateMachine(
                resumingAfter: row.discovery.map { DiscoveryStateMachine.DiscoveryID($0.answered) },
                burst: configuration.discoveryBurst, perSecond: configuration.discoveriesPerSecond
            ),
            discovered: Set(row.discovery?.readers ?? []),
            connection: context.connectionID, nowUnixMs: configuration.clock.nowUnixMs,
            reader: row.reader.map(ReaderID.init), generation: OwnershipGeneration(row.generation), epoch: row.epoch
        )
        let adoption = registry.sessionAdopted(session)
        if adoption.isNew { metrics.sessions.unlabeled.increment() }
        if held == nil || held!.epoch != row.epoch - 1 {
            logger.notice("session resumed from another replica", ["session": row.id, "epoch": row.epoch, "reader": row.reader ?? ""])
        }
        let readers = Set([row.reader.map(ReaderID.init), held?.reader, adoption.session.reader].compactMap { $0 })
        for reader in readers.sorted(by: { $0.rawValue < $1.rawValue }) { await follower.refresh(reader) }
        // Dropped again meanwhile (this replica found itself fenced, and forgot every session):
        // the row was adopted all the same, and the answer is the row's; the next call on
        // this connection adopts it anew.
        return registry.session(token: token) ?? adoption.session
    }
}
