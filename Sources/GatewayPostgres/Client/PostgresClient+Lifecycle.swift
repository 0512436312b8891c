import GatewayCore

/// The client as a ``LifecyclePart`` (model: postgres-nio's `PostgresClient.run()`): its
/// store thread, pool and shared LISTEN connection live as long as its `run` does. The run
/// ends by closing every connection and ending every LISTEN stream (``shutdown()``).
extension PostgresClient: LifecyclePart {
    public var name: String { "postgres" }

    /// Serves until `context`'s shutdown, then shuts the client down and returns.
    public func run(_ context: ServiceContext) async {
        context.started()
        _ = await context.shutdown.wait()
        await shutdown()
    }

    /// Serves until the calling task is cancelled, then shuts the client down and returns: run
    /// it as a child task beside the work that uses the client, and cancel it when that is done.
    public func run() async {
        _ = await Latch().wait()
        await shutdown()
    }
}
