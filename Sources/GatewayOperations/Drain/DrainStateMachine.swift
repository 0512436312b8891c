/// The graceful shutdown of one replica, as a pure state machine: the
/// service feeds it signals, timer expiries and in-flight counts, and
/// executes the action each returns.
///
///     serving ──SIGTERM──▶ waitingForLoadBalancer ──timer──▶ waitingForInFlight ──last done / timer──▶ finished
///              (stop being ready)              (send goaway)                      (release claims, exit 0)
///
/// While draining, `/readyz` fails (``isReady``). A second SIGTERM during a
/// drain asks for an immediate exit.
public struct DrainStateMachine: Sendable {
    /// Where the replica is in its shutdown.
    public enum State: Sendable, Equatable {
        /// Normal operation; ready.
        case serving
        /// Not ready; still serving everything while load balancers notice.
        case waitingForLoadBalancer(until: ContinuousClock.Instant)
        /// Peers were told to go away; waiting for in-flight commands.
        case waitingForInFlight(until: ContinuousClock.Instant)
        /// The exit action was returned; nothing more happens.
        case finished
    }

    /// What to do after a termination signal.
    public enum OnTerminationSignal: Sendable, Equatable {
        /// Fail `/readyz` from now on, set `reader_gateway_draining` to 1,
        /// keep serving, and call ``timerFired(now:inFlight:)`` at `wakeAt`.
        case stopBeingReady(wakeAt: ContinuousClock.Instant)
        /// A second signal during a drain: release this replica's claims and
        /// exit now with `status`, abandoning whatever is still in flight.
        case exitNow(status: Int32)
        /// Already exiting; nothing to do.
        case none
    }

    /// What to do when a timer the machine asked for fires.
    public enum OnTimer: Sendable, Equatable {
        /// The load balancer window is over: send goaway to every SDK session,
        /// reader and peer (they reconnect elsewhere), stop accepting new
        /// connections, refuse new commands with a retryable status, and call
        /// ``timerFired(now:inFlight:)`` again at `wakeAt` unless the in-flight
        /// count reaches zero first.
        case sendGoAway(wakeAt: ContinuousClock.Instant)
        /// Goaway is due and nothing is in flight: send goaway, then release
        /// this replica's claims and exit with `status`.
        case sendGoAwayAndExit(status: Int32)
        /// Release this replica's claims in the store (so PostgreSQL names no
        /// connection this replica no longer holds) and exit with `status`;
        /// `abandoned` commands were still in flight at the deadline (their
        /// lanes see the connection close and retry elsewhere).
        case releaseClaimsAndExit(status: Int32, abandoned: Int)
        /// The timer fired early (or is stale): wait until `wakeAt`.
        case wait(wakeAt: ContinuousClock.Instant)
        /// Not draining, or already finished.
        case none
    }

    /// What to do when the in-flight count changes.
    public enum OnInFlightChange: Sendable, Equatable {
        /// The last in-flight command finished after goaway: release this
        /// replica's claims and exit with `status`.
        case releaseClaimsAndExit(status: Int32)
        /// Keep waiting.
        case none
    }

    public let configuration: DrainConfiguration
    public private(set) var state: State = .serving

    public init(configuration: DrainConfiguration) {
        self.configuration = configuration
    }

    /// Whether `/readyz` may report ready.
    public var isReady: Bool { state == .serving }

    /// Whether new connections and commands are still accepted (true until goaway).
    public var acceptsNewWork: Bool {
        switch state {
        case .serving, .waitingForLoadBalancer: true
        case .waitingForInFlight, .finished: false
        }
    }

    /// SIGTERM (or SIGINT) arrived.
    public mutating func terminationSignalReceived(now: ContinuousClock.Instant) -> OnTerminationSignal {
        switch state {
        case .serving:
            let wakeAt = now + configuration.loadBalancerWindow
            state = .waitingForLoadBalancer(until: wakeAt)
            return .stopBeingReady(wakeAt: wakeAt)
        case .waitingForLoadBalancer, .waitingForInFlight:
            state = .finished
            return .exitNow(status: 1)
        case .finished:
            return .none
        }
    }

    /// A timer asked for by an earlier action fired.
    public mutating func timerFired(now: ContinuousClock.Instant, inFlight: Int) -> OnTimer {
        switch state {
        case .serving, .finished:
            return .none
        case .waitingForLoadBalancer(let until):
            guard now >= until else { return .wait(wakeAt: until) }
            if inFlight <= 0 {
                state = .finished
                return .sendGoAwayAndExit(status: 0)
            }
            let wakeAt = now + configuration.inFlightDeadline
            state = .waitingForInFlight(until: wakeAt)
            return .sendGoAway(wakeAt: wakeAt)
        case .waitingForInFlight(let until):
            guard now >= until else { return .wait(wakeAt: until) }
            state = .finished
            return .releaseClaimsAndExit(status: 0, abandoned: max(0, inFlight))
        }
    }

    /// The number of in-flight commands changed (call it when one finishes).
    public mutating func inFlightChanged(to count: Int) -> OnInFlightChange {
        guard case .waitingForInFlight = state, count <= 0 else { return .none }
        state = .finished
        return .releaseClaimsAndExit(status: 0)
    }
}
