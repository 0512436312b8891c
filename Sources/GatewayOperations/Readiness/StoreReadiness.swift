/// What `/readyz` says of the store (PostgreSQL), from the age of the last successful ping.
///
/// PostgreSQL is shared by every replica: when it is unreachable it is unreachable from all of
/// them at once, and a readiness check that failed then would take every pod out of the
/// Service together. Readers and lanes whose connections drop during the outage could then
/// reach no replica at all, not even for what works without PostgreSQL (relayed commands to a
/// reader linked here, session events, heartbeats). So the store fails readiness only until
/// the replica's first successful start (it has never served); after that an outage is
/// reported in the body (`degraded store: …`) and in `reader_gateway_store_reachable`, and the
/// probe stays 200: new connects and registrations fail fast with `STORE_UNAVAILABLE`
/// (retryable) on whichever replica they reach.
public enum StoreReadiness {
    /// The store check's outcome: `lastPingAge` nil before the first successful ping (the
    /// store's start counts as one); stale when older than `staleAfter`.
    public static func outcome(lastPingAge: Duration?, staleAfter: Duration) -> ReadinessCheck.Outcome {
        guard let age = lastPingAge else { return .notReady("not connected yet") }
        guard age > staleAfter else { return .ready }
        let (whole, fraction) = age.components
        let seconds = Int((Double(whole) + Double(fraction) / 1e18).rounded())
        return .degraded(
            "no successful ping for \(seconds) s: new connects and registrations fail with STORE_UNAVAILABLE (retryable);"
                + " links, sessions and relayed commands keep working"
        )
    }

    /// Whether the store counts as reachable (`reader_gateway_store_reachable`).
    public static func isReachable(lastPingAge: Duration?, staleAfter: Duration) -> Bool {
        guard let age = lastPingAge else { return false }
        return age <= staleAfter
    }
}
