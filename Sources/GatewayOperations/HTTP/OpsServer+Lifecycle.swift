import GatewayCore

/// The ops endpoint as a ``LifecyclePart``: bound and serving on its own event loop while
/// its `run` runs; the run ends by closing every ops connection and ending that loop's thread.
extension OpsServer: LifecyclePart {
    public var name: String { "ops" }

    /// Binds and serves until `context`'s shutdown, then stops and returns. A bind that fails
    /// throws before the service says it started.
    public func run(_ context: ServiceContext) async throws {
        try start()
        context.started()
        _ = await context.shutdown.wait()
        stop()
    }

    /// Binds and serves until the calling task is cancelled, then stops and returns.
    public func run() async throws {
        try start()
        // Nothing to do on this task but wait for its cancellation: the endpoint serves on its loop.
        _ = await Latch().wait()
        stop()
    }
}
