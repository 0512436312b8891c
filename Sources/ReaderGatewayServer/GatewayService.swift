/// One part of the running gateway: started in order at start-up, stopped in
/// reverse order at exit. Later layers (listeners, the ops endpoint) add theirs
/// to ``GatewayServer``.
protocol GatewayService: AnyObject, Sendable {
    /// A short name for the log.
    var name: String { get }
    /// Brings the service up; throwing aborts the start-up (already started services are stopped).
    func start() async throws
    /// Takes the service down; must not throw and should be quick. Also called
    /// after a failed ``start()``, so it must cope with a half-started service.
    func stop() async
}
