import GatewayCore
import GatewayPostgres
import GatewayRegistry
import GatewayRepositories
import Synchronization

/// The service's part of a drain (see `DrainHooks` in GatewayOperations):
/// goaway on every connection, the count of commands still waiting for a
/// reader, and handing this replica's sessions back to the store.
extension GatewayServiceHost {
    /// Stops accepting and sends GOAWAY on every open connection: SDK
    /// sessions, readers and admins open new connections elsewhere, calls in
    /// flight finish. Returns at once; the connections close as their calls
    /// end, and ``shutdown(gracePeriod:)`` closes what is left.
    public func goAwayAll(gracePeriod: Duration) {
        guard let server = running.withLock({ $0?.server }) else { return }
        // From now on links that end are handed over (detached), not lost.
        gateway.readerLink.handingOver.store(true, ordering: .relaxed)
        Logger(component: "drain").notice("drain: goaway to every connection", ["connections": server.connectionCount])
        Task { await server.shutdown(gracePeriod: gracePeriod) }
    }

    /// Closes every connection still open after the drain (readers' Attach
    /// calls and lanes' event streams never end on their own), waiting at most
    /// `gracePeriod`: readers and lanes see the connection drop and reconnect
    /// elsewhere. Call it after ``detachSessions()``.
    public func closeConnections(gracePeriod: Duration) async {
        guard let server = running.withLock({ $0?.server }) else { return }
        await server.shutdown(gracePeriod: gracePeriod)
    }

    /// Commands (collect, confirm, …) relayed to a reader and not answered yet.
    public var inFlightCommands: Int {
        gateway.registry.pendingCommandCount
    }

    /// Sets `latch` once no relayed command is in flight (at once when none is): what a drain
    /// waits on after goaway. The registry sets it when the event that ends the last pending
    /// command has been performed (``Registry/whenNoCommandsPending(_:)``); nothing polls.
    public func whenNoCommandsInFlight(_ latch: Latch) {
        gateway.registry.whenNoCommandsPending(latch)
    }

    /// Detaches every session this replica holds: in memory (so the sweeper
    /// sees them as detached) and in PostgreSQL, where each open session's
    /// lease now runs from this moment. A lane resumes it with its resume
    /// token on another replica within the lease; the reader it owns stays
    /// its own. Returns how many sessions were handed back.
    @discardableResult
    public func detachSessions() async -> Int {
        let now = ContinuousClock.now
        let ids = gateway.registry.allSessionsDetached(now: now)
        do {
            try await gateway.database.sessions.detachSessions(node: gateway.node.id, lease: gateway.configuration.sessionLease)
        } catch {
            Logger(component: "drain").warning("drain: could not hand sessions back to the store", ["error": "\(error)", "sessions": ids.count])
        }
        Logger(component: "drain").notice("drain: sessions detached", ["sessions": ids.count])
        return ids.count
    }
}
