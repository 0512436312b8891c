import Foundation
import GatewayCore
import GatewayOperations
import GatewayRepositories
import GatewayService
import GatewayTransport

/// The process shell: the gateway's services run side by side by a ``LifecycleGroup`` (the ops
/// endpoint, the store, the gateway host) and the signals that stop them. The first SIGINT or
/// SIGTERM starts a graceful shutdown (the gateway drains first, the ops endpoint stops last);
/// a second one exits at once.
final class GatewayServer: Sendable {
    let options: ServerOptions
    let store: StorePart
    /// The ops endpoint, when `--ops-port` is set.
    let ops: OpsPart?
    /// The TLS port with the gateway's services, its background loops and its drain.
    let gateway: GatewayServiceHost
    let services: [any LifecyclePart]
    private let logger = Logger(component: "main")

    init(options: ServerOptions) {
        self.options = options
        let store = StorePart(options: options)
        self.store = store
        let metrics = GatewayMetrics(
            callMethods: GatewayServiceHost.methodNames, version: GatewayVersion.current.description, schema: "\(Migrations.latestVersion)"
        )
        let ops = options.opsPort == nil ? nil : OpsPart(options: options, store: store, metrics: metrics, startedServices: ["store", "gateway"])
        let configuration = options.drain
        let logger = self.logger
        gateway = GatewayServiceHost(metrics: metrics, drain: { hooks in
            let drainStarted = ContinuousClock.now
            if let ops {
                await ops.drain(hooks)
            } else {
                _ = await DrainCoordinator(configuration: configuration).drain(hooks: hooks)
            }
            logger.info("drain finished", ["seconds": ContinuousClock.now - drainStarted])
        }) {
            try await GatewayHostSetup.make(options: options, store: store)
        }
        self.ops = ops
        services = (ops.map { [$0] } ?? []) + [store, gateway]
    }

    /// Runs until a signal's graceful shutdown has finished or a service failed. Returns
    /// the process exit status.
    func run(signals: SignalWaiter) async -> Int32 {
        logger.info("reader-gateway starting", [
            "version": GatewayVersion.current.description, "schema": Migrations.latestVersion, "node_name": options.nodeName, "pid": getpid(),
        ])
        let group = LifecycleGroup(services) { [self] event in observe(event) }
        return await withTaskGroup(of: Void.self) { tasks in
            tasks.addTask { [self] in
                var first = true
                for await signal in signals.signals {
                    if first {
                        first = false
                        logger.info("stopping", ["signal": SignalWaiter.name(signal)])
                        ops?.beginDraining()
                        group.requestShutdown()
                    } else {
                        logger.warning("second signal during shutdown; exiting now", ["signal": SignalWaiter.name(signal)])
                        exit(1)
                    }
                }
            }
            let failures = await group.run()
            tasks.cancelAll()
            // The first failure was logged when it started the shutdown.
            for failure in failures.dropFirst() { logger.critical("\(failure)") }
            logger.info("stopped")
            return failures.isEmpty ? 0 : 1
        }
    }

    private func observe(_ event: LifecycleGroup.Event) {
        switch event {
        case .started(let service):
            ops?.serviceStarted(service)
        case .allStarted:
            var readyLogger = logger
            for (key, value) in store.readyMetadata { readyLogger = readyLogger.with(key, value) }
            readyLogger.with("node_name", options.nodeName).with("version", GatewayVersion.current.description).info("ready")
        case .shuttingDown(let cause?):
            logger.critical("\(cause); stopping the other services")
        case .shuttingDown(nil):
            break
        case .stopped(let service):
            logger.debug("\(service) stopped")
        }
    }
}
