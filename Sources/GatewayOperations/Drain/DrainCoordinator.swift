import GatewayCore

/// What the rest of the gateway does at each step of a drain. Every hook has
/// a do-nothing default, so a layer that has nothing in flight yet can
/// leave it out.
public struct DrainHooks: Sendable {
    /// Fail `/readyz` from now on.
    public var stopBeingReady: @Sendable () async -> Void
    /// Tell SDK sessions, readers and peers to reconnect elsewhere; stop
    /// accepting; refuse new commands with a retryable status.
    public var sendGoAway: @Sendable () async -> Void
    /// Commands (collect, confirm) still in flight on this replica: read once when the load
    /// balancer window ends, and once more if the in-flight deadline passes.
    public var inFlightCommands: @Sendable () -> Int
    /// Sets the latch when the last command in flight ends (at once when none is). Asked once,
    /// after goaway: the drain then waits on the latch, not on the clock.
    public var whenNothingInFlight: @Sendable (Latch) -> Void
    /// Release the reader ownership this replica holds in the store.
    public var releaseClaims: @Sendable () async -> Void

    public init(
        stopBeingReady: @escaping @Sendable () async -> Void = {},
        sendGoAway: @escaping @Sendable () async -> Void = {},
        inFlightCommands: @escaping @Sendable () -> Int = { 0 },
        whenNothingInFlight: @escaping @Sendable (Latch) -> Void = { $0.set() },
        releaseClaims: @escaping @Sendable () async -> Void = {}
    ) {
        self.stopBeingReady = stopBeingReady
        self.sendGoAway = sendGoAway
        self.inFlightCommands = inFlightCommands
        self.whenNothingInFlight = whenNothingInFlight
        self.releaseClaims = releaseClaims
    }
}

/// Runs a ``DrainStateMachine`` against the clock: the I/O shell around it.
///
/// Call ``drain(hooks:)`` once the termination signal arrived; it returns
/// when the replica may exit, with the status to exit with.
public struct DrainCoordinator: Sendable {
    /// How a drain ended.
    public struct Outcome: Sendable, Equatable {
        /// The process exit status (0 for a completed drain).
        public var status: Int32
        /// Commands still in flight when the deadline passed.
        public var abandonedCommands: Int
        /// Whether the in-flight deadline ended the drain (rather than the last command).
        public var endedAtDeadline: Bool

        public init(status: Int32, abandonedCommands: Int, endedAtDeadline: Bool = false) {
            self.status = status
            self.abandonedCommands = abandonedCommands
            self.endedAtDeadline = endedAtDeadline
        }
    }

    public let configuration: DrainConfiguration

    public init(configuration: DrainConfiguration) {
        self.configuration = configuration
    }

    public func drain(hooks: DrainHooks) async -> Outcome {
        var machine = DrainStateMachine(configuration: configuration)
        guard case .stopBeingReady(var wakeAt) = machine.terminationSignalReceived(now: .now) else {
            return Outcome(status: 1, abandonedCommands: 0)
        }
        await hooks.stopBeingReady()
        while true {
            await Self.sleep(until: wakeAt)
            switch machine.timerFired(now: .now, inFlight: hooks.inFlightCommands()) {
            case .wait(let next):
                wakeAt = next
            case .sendGoAway(let deadline):
                await hooks.sendGoAway()
                // Until the last command in flight ends or the deadline passes, whichever is first.
                let nothingInFlight = Latch()
                hooks.whenNothingInFlight(nothingInFlight)
                if await nothingInFlight.wait(atMost: ContinuousClock.now.duration(to: deadline)),
                   case .releaseClaimsAndExit(let status) = machine.inFlightChanged(to: 0) {
                    await hooks.releaseClaims()
                    return Outcome(status: status, abandonedCommands: 0)
                }
                wakeAt = deadline
            case .sendGoAwayAndExit(let status):
                await hooks.sendGoAway()
                await hooks.releaseClaims()
                return Outcome(status: status, abandonedCommands: 0)
            case .releaseClaimsAndExit(let status, let abandoned):
                await hooks.releaseClaims()
                return Outcome(status: status, abandonedCommands: abandoned, endedAtDeadline: true)
            case .none:
                return Outcome(status: 0, abandonedCommands: 0)
            }
        }
    }

    /// Sleeps until `instant`; cancellation ends the wait early (the drain
    /// then proceeds to its next step at once).
    private static func sleep(until instant: ContinuousClock.Instant) async {
        guard instant > .now else { return }
        try? await Task.sleep(until: instant, clock: .continuous)
    }
}
