import GatewayCore
import GatewayDomain
import GatewayPostgres
import GatewayRegistry
import GatewayRepositories
import GatewayWire

extension Gateway {
    /// This replica's part of the node directory, until cancelled, as two loops that never wait
    /// for each other:
    ///
    /// - the node heartbeat (``runNodeHeartbeat(advertisedAddress:health:)``): register,
    ///   heartbeat every lease/5 on the store client's reserved connection (with this replica's
    ///   `WatchFleet` watchers, learning the others'), fence when reaped;
    /// - the sweeps (``runMembershipSweeps(health:)``): reap replicas silent for a lease (only
    ///   after this one has itself been healthy for a whole lease, so that after a PostgreSQL
    ///   outage nobody reaps the others before they could heartbeat), release readers whose
    ///   detached link did not come back within the offline bound, and compare memory with the
    ///   rows now and then (a bounded batch of readers each time).
    ///
    /// The sweeps' statements share the pool with every reader's and lane's; a burst of them
    /// (thousands of links lost at once) can queue for many seconds. The heartbeat neither
    /// waits behind them in the pool nor behind the sweeps in one loop, so such a burst cannot
    /// cost this replica its node lease.
    func runMembership(advertisedAddress: String) async {
        let health = NodeHealth(clock: configuration.clock)
        await withTaskGroup(of: Void.self) { loops in
            loops.addTask { [self] in await runNodeHeartbeat(advertisedAddress: advertisedAddress, health: health) }
            loops.addTask { [self] in await runMembershipSweeps(health: health) }
        }
    }

    /// Keeps this node's row alive every lease/5 until cancelled, re-registering and fencing as
    /// the row says; records in `health` since when the heartbeat has held.
    func runNodeHeartbeat(advertisedAddress: String, health: NodeHealth) async {
        let lease = configuration.nodeLease
        let interval = configuration.nodeHeartbeatInterval
        // The host registered this node before opening its port.
        var registered = true
        var lastTick = configuration.clock.now
        while !Task.isCancelled {
            let now = configuration.clock.now
            if now - lastTick > lease {
                // Paused (SIGSTOP, a frozen VM) past the lease: the others may have
                // reaped this node. Trust nothing until the heartbeat says otherwise.
                logger.warning("this replica was paused longer than the node lease; checking whether it was reaped", [
                    "paused_seconds": now - lastTick,
                ])
                health.lost()
            }
            lastTick = now
            do {
                if !registered {
                    try await cluster.register(node: node.id, internalAddress: advertisedAddress)
                    registered = true
                    logger.notice("node registered", ["node": node.id, "internal": advertisedAddress])
                } else if let watchersElsewhere = try await cluster.heartbeat(node: node.id, fleetWatchers: fleet.watcherCount) {
                    fleet.watchersElsewhere(watchersElsewhere)
                } else {
                    health.lost()
                    await fence()
                    registered = false
                    continue
                }
                health.held()
            } catch {
                if health.isHealthy { logger.warning("node heartbeat failed", ["error": error]) }
                health.lost()
            }
            try? await Task.sleep(for: interval)
        }
    }

    /// Reaps, releases and compares every lease/5 while the heartbeat holds, until cancelled.
    func runMembershipSweeps(health: NodeHealth) async {
        let lease = configuration.nodeLease
        let interval = configuration.nodeHeartbeatInterval
        var nextReconcile = configuration.clock.now
        // The readers of interest still to compare in this pass of the periodic comparison.
        var comparePass: ArraySlice<ReaderID> = []
        var nextCodeSweep = configuration.clock.now
        while !Task.isCancelled {
            if health.healthy(for: lease) {
                await reapAndRelease(lease: lease)
            }
            if health.isHealthy, configuration.clock.now >= nextReconcile {
                nextReconcile = configuration.clock.now + configuration.reconcileInterval
                // In turns of at most `reconcileBatch` readers: PostgreSQL's work per interval
                // does not grow with the fleet (a full pass over N readers takes
                // N / reconcileBatch intervals). NOTIFY is the fast path and a re-subscribed
                // listener compares everything at once; this pass is the backstop.
                if comparePass.isEmpty { comparePass = registry.readersOfInterest[...] }
                let turn = comparePass.prefix(configuration.reconcileBatch)
                comparePass = comparePass.dropFirst(turn.count)
                await follower.reconcile(Array(turn))
            }
            if health.isHealthy, configuration.clock.now >= nextCodeSweep {
                nextCodeSweep = configuration.clock.now + .seconds(60)
                await followUp("deleting expired registration codes", leaves: "they are deleted on the next sweep (they are refused as expired meanwhile)") {
                    try await database.registrationCodes.deleteExpiredRegistrationCodes()
                }
            }
            try? await Task.sleep(for: interval)
        }
    }

    /// Reaps dead replicas and releases readers whose link was detached longer
    /// than the offline bound (each exactly once across the cluster).
    func reapAndRelease(lease: Duration) async {
        do {
            let reaped = try await cluster.reapDeadNodes(lease: lease)
            if !reaped.isEmpty { logger.notice("reaped replicas that stopped heartbeating", ["nodes": reaped.joined(separator: ",")]) }
            for expiry in try await ownership.releaseDetachedReaders(offlineBound: configuration.readerOfflineBound) {
                if case .released(_, let generation, let actions) = expiry.result {
                    let nowUnixMs = configuration.clock.nowUnixMs
                    registry.ownershipDecided(expiry.reader, generation: generation, actions: actions, reason: .readerLost, nowUnixMs: nowUnixMs)
                }
            }
        } catch {
            logger.warning("could not reap dead replicas", ["error": error])
        }
    }

    /// This replica found its node row gone: the others declared it dead
    /// (paused or cut off from PostgreSQL past the lease) and detached its
    /// links. It acts on nothing it remembered: every link and session is
    /// dropped from memory without a store write (readers re-attach and keep
    /// their owners, lanes resume their sessions, here or elsewhere), then it
    /// rejoins as a new incarnation.
    func fence() async {
        let fenced = registry.fenced()
        let links = fenced.links
        let old = node.id
        let fresh = node.renew()
        logger.error("this replica was reaped by the others; dropped its links and sessions and rejoins as a new node", [
            "old_node": old, "node": fresh, "links": links.count, "sessions": fenced.sessionCount,
        ])
        metrics.readersOnline.unlabeled.decrement(by: Int64(links.count))
        metrics.sessions.unlabeled.decrement(by: Int64(fenced.sessionCount))
        // The reaper detached these links already; if this replica was removed some
        // other way, detach them now (fenced by epoch: a newer link is never touched).
        for link in links {
            await followUp("detaching a fenced replica's link", leaves: "the reaper that removed this replica's row detached it, or its reader re-attaches") {
                try await ownership.readerDetached(link.reader, epoch: link.epoch)
            }
        }
    }
}
