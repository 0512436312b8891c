import Foundation
import GatewayCore
import GatewayOperations
import GatewayService

/// The gateway's start-up and shut-down sequence.
///
/// Services start in the order they are listed and stop in reverse order.
/// Later layers insert their own ``GatewayService`` after the store.
final class GatewayServer: Sendable {
    let options: ServerOptions
    let store: StoreService
    /// The ops endpoint, when `--ops-port` is set.
    let ops: OpsService?
    /// The TLS port with the gateway's services.
    let listener: ListenerService
    let services: [any GatewayService]
    private let logger = Logger(component: "main")

    init(options: ServerOptions) {
        self.options = options
        store = StoreService(options: options)
        let metrics = GatewayMetrics(callMethods: GatewayServiceHost.methodNames)
        let listener = ListenerService(options: options, store: store, metrics: metrics)
        self.listener = listener
        if options.opsPort != nil {
            let ops = OpsService(options: options, store: store, metrics: metrics, startedServices: ["store", "gateway"])
            ops.drainHooks.withLock { $0 = listener.drainHooks() }
            self.ops = ops
            services = [ops, store, listener]
        } else {
            ops = nil
            services = [store, listener]
        }
    }

    /// Starts every service, logs "ready", waits for SIGINT or SIGTERM, stops
    /// every service. Returns the process exit status.
    func run(signals: SignalWaiter) async -> Int32 {
        logger.info("reader-gateway starting", ["node_name": options.nodeName, "pid": getpid()])
        var started: [any GatewayService] = []
        for service in services {
            do {
                try await service.start()
                started.append(service)
                ops?.serviceStarted(service.name)
            } catch {
                logger.critical("cannot start \(service.name): \(error)")
                // A service that failed half-way releases what it did start.
                await service.stop()
                await stop(started)
                return 1
            }
        }
        var readyLogger = logger
        for (key, value) in store.readyMetadata { readyLogger = readyLogger.with(key, value) }
        readyLogger.with("node_name", options.nodeName).info("ready")
        let signal = await signals.next()
        logger.info("stopping", ["signal": signal == SIGINT ? "SIGINT" : "SIGTERM"])
        ops?.beginDraining()
        Task {
            let again = await signals.next()
            Logger(component: "main").warning("second signal during shutdown; exiting now", ["signal": again])
            exit(1)
        }
        let drainStarted = ContinuousClock.now
        if let ops {
            await ops.drain()
        } else {
            _ = await DrainCoordinator(configuration: options.drain).drain(hooks: listener.drainHooks())
        }
        logger.info("drain finished", ["seconds": ContinuousClock.now - drainStarted])
        await stop(started)
        logger.info("stopped")
        return 0
    }

    private func stop(_ started: [any GatewayService]) async {
        for service in started.reversed() { await service.stop() }
    }
}
