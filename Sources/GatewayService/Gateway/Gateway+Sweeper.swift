import GatewayDomain
import GatewayPostgres
import GatewayRegistry
import GatewayRepositories

extension Gateway {
    /// Checks reader heartbeats every sweep interval and session leases every
    /// third of a lease, until cancelled. A lease renewal that failed (PostgreSQL
    /// unreachable) is tried again at the next sweep instead of a third of a lease later:
    /// two failed renewals in a row must not cost a lane its session.
    func runSweeper() async {
        let interval = configuration.sweepInterval
        let leaseEvery = max(interval, configuration.sessionLease / 3)
        var nextLeaseSweep = configuration.clock.now
        var lastTick = configuration.clock.now
        while !Task.isCancelled {
            if configuration.clock.now - lastTick > interval * 3 + .seconds(1) {
                // This process was paused (SIGSTOP, a frozen VM): its readers' silence is its
                // own. They get a fresh bound instead of being reported lost on stale clocks;
                // the node heartbeat decides whether this replica may still act at all.
                forgiveReaderSilence()
            }
            lastTick = configuration.clock.now
            sweepLinks()
            if configuration.clock.now >= nextLeaseSweep {
                let renewed = await sdk.sessions.sweepSessions()
                nextLeaseSweep = configuration.clock.now + (renewed ? leaseEvery : interval)
            }
            try? await Task.sleep(for: interval)
        }
    }

    /// Restarts every link's offline bound from now (after this process was paused).
    func forgiveReaderSilence() {
        registry.silenceForgiven(now: configuration.clock.now)
    }

    /// Ends links whose reader stopped heartbeating and fails commands the reader did not
    /// answer in time (the sweeper calls it).
    func sweepLinks() {
        registry.tick(heartbeatBound: configuration.readerOfflineBound - configuration.sweepInterval)
    }
}
