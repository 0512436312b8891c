/// The timings of a graceful shutdown.
///
/// The sum of the two windows, plus a margin for closing up, must fit in the
/// orchestrator's grace period (Kubernetes `terminationGracePeriodSeconds`),
/// or the replica is killed mid-drain. The Helm chart derives the grace
/// period from the same values.
public struct DrainConfiguration: Sendable, Equatable {
    /// How long the replica keeps serving while failing `/readyz`, so load
    /// balancers stop sending new sessions before anyone is told to leave.
    public var loadBalancerWindow: Duration
    /// How long, after telling peers to go away, in-flight commands (collect,
    /// confirm) may take to finish before the replica exits anyway.
    public var inFlightDeadline: Duration

    public init(loadBalancerWindow: Duration = .seconds(5), inFlightDeadline: Duration = .seconds(20)) {
        self.loadBalancerWindow = loadBalancerWindow
        self.inFlightDeadline = inFlightDeadline
    }
}
