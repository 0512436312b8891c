/// One part of a running process: the store, a listener, the ops endpoint.
///
/// ``run(_:)`` is the service's whole life: it starts the service, says so with
/// ``ServiceContext/started()``, serves until ``ServiceContext/shutdown`` is set, winds
/// down (drains, closes, stops what it started, including after a half-finished start) and
/// returns. Returning or throwing before the shutdown was asked for ends the whole
/// ``LifecycleGroup``.
public protocol LifecyclePart: Sendable {
    /// A short name for the log.
    var name: String { get }
    func run(_ context: ServiceContext) async throws
}

/// What a ``LifecycleGroup`` hands each service it runs.
public struct ServiceContext: Sendable {
    /// Set when the service is to wind down and return (``Latch/wait()`` waits for it).
    public let shutdown: Latch
    private let reportStarted: @Sendable () -> Void

    init(shutdown: Latch, reportStarted: @escaping @Sendable () -> Void) {
        self.shutdown = shutdown
        self.reportStarted = reportStarted
    }

    /// Tells the group the service is up (once; later calls do nothing).
    public func started() { reportStarted() }
}
