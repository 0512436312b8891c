import GatewayCore
import GatewayOperations
import GatewayRepositories

/// The service's part of a drain (see `DrainHooks` in GatewayOperations):
/// goaway on every connection, the count of commands still waiting for a
/// reader, and handing this replica's sessions back to the store.
extension GatewayServiceHost {
    /// The hooks the run's drain gets: over what this run opened, so nothing is looked up.
    func drainHooks(_ open: OpenedGateway) -> DrainHooks {
        let gateway = open.gateway
        return DrainHooks(
            sendGoAway: { Self.goAway(open) },
            // Commands (collect, confirm, …) relayed to a reader and not answered yet.
            inFlightCommands: { gateway.registry.pendingCommandCount },
            // The registry sets the latch when the event that ends the last pending command has
            // been performed (``LiveRegistry/whenNoCommandsPending(_:)``); nothing polls.
            whenNothingInFlight: { latch in gateway.registry.whenNoCommandsPending(latch) },
            releaseClaims: {
                await Self.detachSessions(gateway)
                // Readers' Attach calls and lanes' event streams never end on their own: what is
                // still open closes now, and its readers and lanes reconnect elsewhere.
                await open.server.shutdown(gracePeriod: .milliseconds(200))
            }
        )
    }

    /// Stops accepting and sends GOAWAY on every open connection: SDK sessions, readers and
    /// admins open new connections elsewhere, calls in flight finish. Returns at once; the
    /// connections close as their calls end, and the run's close ends what is left. Does
    /// nothing before the run opened the port.
    public func goAwayAll() {
        guard let open = opened else { return }
        Self.goAway(open)
    }

    private static func goAway(_ open: OpenedGateway) {
        // From now on links that end are handed over (detached), not lost.
        open.gateway.readerLink.handingOver.store(true, ordering: .relaxed)
        Logger(component: "drain").notice("drain: goaway to every connection", ["connections": open.server.connectionCount])
        open.server.beginShutdown()
    }

    /// Detaches every session this replica holds: in memory (so the sweeper
    /// sees them as detached) and in PostgreSQL, where each open session's
    /// lease now runs from this moment. A lane resumes it with its resume
    /// token on another replica within the lease; the reader it owns stays
    /// its own.
    private static func detachSessions(_ gateway: Gateway) async {
        let ids = gateway.registry.allSessionsDetached(now: ContinuousClock.now)
        do {
            try await gateway.database.sessions.detachSessions(node: gateway.node.id, lease: gateway.configuration.sessionLease)
        } catch {
            Logger(component: "drain").warning("drain: could not hand sessions back to the store", ["error": "\(error)", "sessions": ids.count])
        }
        Logger(component: "drain").notice("drain: sessions detached", ["sessions": ids.count])
    }
}
