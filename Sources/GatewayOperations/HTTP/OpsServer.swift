import Dispatch
import Foundation
import GatewayCore
import Synchronization

/// The ops HTTP/1.1 endpoint: `/healthz`, `/readyz` and `/metrics` on a port
/// of its own, served by one thread of its own with epoll, so a slow scrape
/// or a misbehaving client never touches the data-path event loops.
///
///     let server = OpsServer(configuration: .init(host: "0.0.0.0", port: 9090), router: router)
///     let port = try server.start()
///     …
///     server.stop()
public final class OpsServer: Sendable {
    public let configuration: OpsServerConfiguration
    private let router: OpsRouter
    private let logger: Logger
    private let state = Mutex<State>(.idle)

    private enum State {
        case idle
        case running(wake: Int32, finished: DispatchSemaphore, port: Int)
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
        let loop: OpsEventLoop
        do throws(OpsServerError) {
            loop = try OpsEventLoop(listener: listener.fd, configuration: configuration, router: router, logger: logger)
        } catch {
            OpsSocket.close(listener.fd)
            throw error
        }
        let finished = DispatchSemaphore(value: 0)
        state.withLock { $0 = .running(wake: loop.wakeFD, finished: finished, port: listener.port) }
        let thread = Thread {
            loop.run()
            finished.signal()
        }
        thread.name = "ops-http"
        thread.start()
        logger.info("ops endpoint listening", ["address": configuration.host, "port": listener.port])
        return listener.port
    }

    /// Stops accepting, closes every ops connection and waits for the ops
    /// thread to end. Safe to call more than once.
    public func stop() {
        let running = state.withLock { state -> (Int32, DispatchSemaphore)? in
            defer { state = .stopped }
            if case .running(let wake, let finished, _) = state { return (wake, finished) }
            return nil
        }
        guard let (wake, finished) = running else { return }
        OpsEventLoop.wake(wake)
        finished.wait()
    }

    /// Starts the server and serves until the calling task is cancelled.
    public func run() async throws {
        try start()
        defer { stop() }
        while !Task.isCancelled {
            try? await Task.sleep(for: .seconds(3600))
        }
    }

    deinit { stop() }
}
