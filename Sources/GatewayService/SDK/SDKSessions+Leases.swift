import GatewayDomain
import GatewayPostgres
import GatewayRegistry
import GatewayRepositories

extension SDKSessions {
    /// Renews the leases of attached sessions, ends detached sessions whose
    /// lease ran out, and releases the readers of expired sessions. False when the
    /// renewal could not reach PostgreSQL (the sweeper tries again sooner).
    @discardableResult
    func sweepSessions() async -> Bool {
        var renewedAll = true
        let lease = configuration.sessionLease
        let (attached, expired) = registry.leaseSweep(now: configuration.clock.now, lease: lease)
        do {
            let renewed = try await sessions.renewLeases(
                attached.map { SessionEpochRecord(id: $0.id.rawValue, epoch: $0.epoch) }, node: node.id, lease: lease
            )
            // A copy whose row was adopted past its epoch (or closed) is stale: dropped here
            // even when the adoption's notice never arrived.
            lookup.dropStaleCopies(attached.filter { !renewed.contains($0.id.rawValue) })
        } catch {
            renewedAll = false
            logger.warning("could not renew session leases; trying again at the next sweep", ["error": error])
        }
        for token in expired {
            guard let id = registry.session(token: token)?.id else { continue }
            await followUp("closing an expired session's row", leaves: "the next sweep closes it") {
                try await sessions.closeSession(id.rawValue, node: node.id)
            }
        }
        do {
            for expiry in try await ownership.expireSessions(limit: 500) {
                if case .released(let owner, let generation, let actions) = expiry.result {
                    let nowUnixMs = configuration.clock.nowUnixMs
                    registry.readerReleased(expiry.reader, generation: generation, actions: actions, reason: .sessionExpired, nowUnixMs: nowUnixMs)
                    // Its lease ran out in the store: the session is over here too.
                    if let token = registry.session(id: owner.session)?.token, !expired.contains(token) {
                        await endSession(token)
                    }
                }
            }
        } catch {
            logger.warning("could not expire sessions", ["error": error])
        }
        for token in expired { await endSession(token) }
        return renewedAll
    }
}
