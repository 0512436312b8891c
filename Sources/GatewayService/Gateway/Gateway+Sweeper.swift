import GatewayDomain
import GatewayPostgres
import GatewayRepositories

extension Gateway {
    /// Checks reader heartbeats every sweep interval and session leases every
    /// third of a lease, until cancelled.
    func runSweeper() async {
        let interval = configuration.sweepInterval
        let leaseEvery = max(interval, configuration.sessionLease / 3)
        var nextLeaseSweep = ContinuousClock.now
        var lastTick = ContinuousClock.now
        while !Task.isCancelled {
            if ContinuousClock.now - lastTick > interval * 3 + .seconds(1) {
                // This process was paused (SIGSTOP, a frozen VM): its readers' silence is its
                // own. They get a fresh bound instead of being reported lost on stale clocks;
                // the node heartbeat decides whether this replica may still act at all.
                forgiveReaderSilence()
            }
            lastTick = .now
            expireSilentReaders()
            expireCommands()
            if ContinuousClock.now >= nextLeaseSweep {
                nextLeaseSweep = .now + leaseEvery
                await sweepSessions()
            }
            try? await Task.sleep(for: interval)
        }
    }

    /// Renews the leases of attached sessions, ends detached sessions whose
    /// lease ran out, and releases the readers of expired sessions.
    func sweepSessions() async {
        let lease = configuration.sessionLease
        let (attached, expired) = state.withLock { state -> ([String], [String]) in
            var attached: [String] = []
            var expired: [String] = []
            for session in state.sessions.values {
                if let since = session.detachedSince {
                    if ContinuousClock.now - since >= lease { expired.append(session.token) }
                } else {
                    attached.append(session.id.rawValue)
                }
            }
            return (attached, expired)
        }
        do { try await database.renewLeases(attached, node: node.id, lease: lease) } catch {
            logger.warning("could not renew session leases", ["error": error])
        }
        for token in expired {
            if let id = state.withLock({ $0.sessions[token]?.id }) { try? await database.closeSession(id.rawValue, node: node.id) }
        }
        do {
            for expiry in try await ownership.expireSessions() {
                if case .released(let owner, let generation, let actions) = expiry.result {
                    run(actions, reader: expiry.reader, generation: generation, reason: .sessionExpired)
                    tellOwner(expiry.reader, lane: "", generation: generation)
                    // Its lease ran out in the store: the session is over here too.
                    if let token = state.withLock({ $0.sessionTokens[owner.session] }), !expired.contains(token) {
                        await endSession(token)
                    }
                }
            }
        } catch {
            logger.warning("could not expire sessions", ["error": error])
        }
        for token in expired { await endSession(token) }
    }
}
