import GatewayDomain
import GatewayPostgres
import GatewayRegistry
import GatewayRepositories

extension SdkService {
    /// Renews the leases of attached sessions, ends detached sessions whose
    /// lease ran out, and releases the readers of expired sessions.
    func sweepSessions() async {
        let lease = configuration.sessionLease
        let (attached, expired) = registry.read { $0.leaseSweep(now: configuration.clock.now, lease: lease) }
        do {
            let renewed = try await sessions.renewLeases(
                attached.map { SessionEpochRecord(id: $0.id.rawValue, epoch: $0.epoch) }, node: node.id, lease: lease
            )
            // A copy whose row was adopted past its epoch (or closed) is stale: dropped here
            // even when the adoption's notice never arrived.
            dropStaleCopies(attached.filter { !renewed.contains($0.id.rawValue) })
        } catch {
            logger.warning("could not renew session leases", ["error": error])
        }
        for token in expired {
            guard let id = registry.read({ $0.sessions[token]?.id }) else { continue }
            await followUp("closing an expired session's row", leaves: "the next sweep closes it") {
                try await sessions.closeSession(id.rawValue, node: node.id)
            }
        }
        do {
            for expiry in try await ownership.expireSessions(limit: 500) {
                if case .released(let owner, let generation, let actions) = expiry.result {
                    let nowUnixMs = configuration.clock.nowUnixMs
                    registry.apply { $0.readerReleased(expiry.reader, generation: generation, actions: actions, reason: .sessionExpired, nowUnixMs: nowUnixMs) }
                    // Its lease ran out in the store: the session is over here too.
                    if let token = registry.read({ $0.token(of: owner.session) }), !expired.contains(token) {
                        await endSession(token)
                    }
                }
            }
        } catch {
            logger.warning("could not expire sessions", ["error": error])
        }
        for token in expired { await endSession(token) }
    }

    /// Drops copies of sessions whose rows moved past them; their streams end with SESSION_MOVED.
    func dropStaleCopies(_ copies: [SessionEpoch]) {
        guard !copies.isEmpty else { return }
        let dropped = registry.act { registry -> ([RegistrySession], [RegistryAction]) in
            let result = registry.sessionsNotRenewed(copies)
            return (result.sessions, result.actions)
        }
        for session in dropped {
            metrics.sessions.unlabeled.decrement()
            logger.info("session no longer held here (resumed elsewhere, or closed); its copy is dropped", ["session": session.id.rawValue])
        }
    }
}
