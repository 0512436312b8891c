import GatewayCore
import GatewayDomain
import GatewayOperations
import GatewayRegistry
import GatewayRepositories
import GatewayWire

/// How every SDK sub-surface finds a call's session: the copy this replica holds on the
/// call's connection, or the row adopted from PostgreSQL (the lane came back after a dropped
/// connection, a replica that died or drained, or a balancer that chose another replica).
/// It also answers a call whose session must resume first, and drops copies whose rows moved on.
struct SDKSessionLookup: Sendable {
    let configuration: ServiceConfiguration
    /// Session rows (adoption).
    let sessions: any SessionRepository
    let registry: LiveRegistry
    let metrics: GatewayMetrics
    let node: NodeIdentity
    /// Re-reads the ownership of the readers an adoption involves.
    let follower: any OwnershipFollowing
    let logger: Logger

    /// The session named by `token`, marked as used by the call's connection: from
    /// memory when the connection is already bound to the copy held here, otherwise
    /// adopted from PostgreSQL (the lane's connection landed here after its replica died,
    /// drained, or the load balancer chose another replica; or it came back to a replica
    /// whose copy the row may have moved past).
    func session(_ token: String, _ context: CallContext) async throws(ServiceError) -> RegistrySession {
        if let found = localSession(token, context) { return found }
        if let error = registry.resumeFirst(token, connection: context.connectionID) { throw error }
        if let adopted = try await adoptSession(token, context) { return adopted }
        throw ServiceError.sessionUnknown
    }

    /// The session named by `token` if this replica holds it on the call's connection
    /// (and its lease runs).
    func localSession(_ token: String, _ context: CallContext) -> RegistrySession? {
        let lease = configuration.sessionLease
        let nowUnixMs = configuration.clock.nowUnixMs
        return registry.sessionUsed(token, connection: context.connectionID, now: configuration.clock.now, nowUnixMs: nowUnixMs, lease: lease)
    }

    /// Adopts the session whose resume token is `token` from its row, for the call's
    /// connection: the lane came back (after a dropped connection, a replica that died or
    /// drained, or a balancer that chose another replica) and this replica answers from
    /// the row, never from a copy the row may have moved past.
    ///
    /// The row's epoch grows by one under its lock and its reader and latest discovery are
    /// read in the same statement (``SessionStore/adoptSession(token:node:lease:)``);
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

    /// What a session's call is answered with when it fails with `error`: an ownership
    /// refusal on a connection whose event stream this replica ended asking for a resume
    /// (fenced off, or the session moved, while the call was on its way) becomes that resume
    /// error, since the refusal's `disconnected` event can no longer reach the connection.
    func answering(_ error: ServiceError, token: String, _ context: CallContext) -> ServiceError {
        Self.answering(error, token: token, connection: context.connectionID, registry: registry)
    }

    /// ``answering(_:token:_:)`` from the registry alone: for a closure kept per relayed
    /// command, which then holds one reference, not a copy of this struct (a retain per field).
    static func answering(_ error: ServiceError, token: String, connection: UInt64, registry: LiveRegistry) -> ServiceError {
        guard error.isOwnershipRefusal, let resume = registry.resumeFirst(token, connection: connection) else { return error }
        return resume
    }

    /// Runs a session's call, its failure answered as ``answering(_:token:_:)`` says.
    func answering<T>(token: String, _ context: CallContext, _ body: () async throws(ServiceError) -> T) async throws(ServiceError) -> T {
        do { return try await body() } catch { throw answering(error, token: token, context) }
    }

    /// Drops copies of sessions whose rows moved past them; their streams end with SESSION_MOVED.
    func dropStaleCopies(_ copies: [SessionEpoch]) {
        guard !copies.isEmpty else { return }
        let dropped = registry.sessionsNotRenewed(copies)
        for session in dropped {
            metrics.sessions.unlabeled.decrement()
            logger.info("session no longer held here (resumed elsewhere, or closed); its copy is dropped", ["session": session.id.rawValue])
        }
    }

    /// The refusal a displaced session's next command fails with, consumed, once the event
    /// telling of the loss went out on its stream (see ``LiveRegistry/takePendingRefusal(of:)``).
    func takePendingRefusal(_ session: RegistrySession) async -> OwnershipRefusal? {
        await registry.takePendingRefusal(of: session.id)
    }
}

/// Ends a session's ownership of a reader (disconnect, close, a connect the update rules
/// refused), in the store and then in the registry.
struct SDKReaderRelease: Sendable {
    let ownership: any OwnershipRepository
    let registry: LiveRegistry
    let clock: any ServiceClock

    func release(_ reader: ReaderID, session: RegistrySession, reason: ReaderGatewayV1.DisconnectReason) async throws(ServiceError) {
        let result: ReleaseResult
        do { result = try await ownership.disconnect(reader: reader, session: session.id, generation: session.generation) } catch {
            throw ServiceError.store(error)
        }
        registry.readerLetGo(reader, by: session.id)
        switch result {
        case .released(_, let generation, let actions):
            registry.readerReleased(reader, generation: generation, actions: actions, reason: reason, nowUnixMs: clock.nowUnixMs)
        case .unchanged, .refused:
            break
        }
    }
}
