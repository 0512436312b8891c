import Dispatch
import GatewayCore
import GatewayEventLoop
import Synchronization

/// The ops HTTP/1.1 endpoint: `/healthz`, `/readyz` and `/metrics` on a port
/// of its own, served by an event loop of its own (one thread), so a slow scrape
/// or a misbehaving client never touches the data-path event loops.
///
///     let server = OpsServer(configuration: .init(host: "0.0.0.0", port: 9090), router: router)
///     try await server.run(context)   // a ``LifecyclePart``: serves until the shutdown
///
/// `start()` and `stop()` are the same steps for callers that manage the server themselves.
public final class OpsServer: Sendable {
    public let configuration: OpsServerConfiguration
    private let router: OpsRouter
    private let logger: Logger
    private let state = Mutex<State>(.idle)

    private enum State {
        case idle
        case running(group: EventLoopGroup, endpoint: OpsEndpoint, port: Int)
        case stopped
    }

    public init(configuration: OpsServerConfiguration, router: OpsRouter, logger: Logger = Logger(component: "ops")) {
        self.configuration = configuration
        self.router = router
        self.logger = logger
    }

    /// The bound port while running, else nil.
    public var port: Int? {
        state.withLock { state in
            if case .running(_, _, let port) = state { return port }
            return nil
        }
    }

    /// Binds, starts the ops thread and returns the bound port (useful with port 0).
    @discardableResult
    public func start() throws(OpsServerError) -> Int {
        let alreadyStarted = state.withLock { state -> Bool in
            if case .idle = state { return false }
            return true
        }
        if alreadyStarted { throw OpsServerError(.alreadyStarted, "start() was already called on this server") }

        let listener = try OpsSocket.listen(host: configuration.host, port: configuration.port)
        let group: EventLoopGroup
        do throws(EventLoopError) {
            group = try EventLoopGroup(loopCount: 1, readBufferSize: 4096, threadNamePrefix: "ops-http", logComponent: "ops")
        } catch {
            OpsSocket.close(listener.fd)
            throw OpsServerError(.socketFailed, "cannot start the ops endpoint's event loop: \(error)")
        }
        let endpoint = OpsEndpoint(listener: listener.fd, loop: group.loops[0], configuration: configuration, router: router, logger: logger)
        let started = Mutex<Result<Void, OpsServerError>?>(nil)
        let done = DispatchSemaphore(value: 0)
        endpoint.loop.execute {
            do throws(OpsServerError) {
                try endpoint.start()
                started.withLock { $0 = .success(()) }
            } catch {
                endpoint.closeAll()
                started.withLock { $0 = .failure(error) }
            }
            done.signal()
        }
        done.wait()
        if case .failure(let error)? = started.withLock({ $0 }) {
            group.syncShutdown()
            throw error
        }
        state.withLock { $0 = .running(group: group, endpoint: endpoint, port: listener.port) }
        logger.info("ops endpoint listening", ["address": configuration.host, "port": listener.port])
        return listener.port
    }

    /// Stops accepting, closes every ops connection and waits for the ops
    /// thread to end. Safe to call more than once.
    public func stop() {
        let running = state.withLock { state -> (EventLoopGroup, OpsEndpoint)? in
            defer { state = .stopped }
            if case .running(let group, let endpoint, _) = state { return (group, endpoint) }
            return nil
        }
        guard let (group, endpoint) = running else { return }
        endpoint.loop.execute { endpoint.closeAll() }
        group.syncShutdown()
    }

    deinit { stop() }
}
