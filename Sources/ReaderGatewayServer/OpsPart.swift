import GatewayCore
import GatewayOperations
import Synchronization

/// The ops endpoint: `/healthz`, `/readyz` and `/metrics` on
/// `--ops-address`:`--ops-port`, on a thread of its own.
///
/// It starts first, so `/healthz` answers while the store starts (the
/// startup probe) and `/readyz` stays 503 until every service is up. It
/// stops last, so `/readyz` reports the drain to the end.
final class OpsPart: LifecyclePart {
    let name = "ops"
    /// The gateway's metrics; later layers record into them.
    let metrics: GatewayMetrics
    private let server: OpsServer
    private let state: OpsState
    private let store: StorePart
    private let logger = Logger(component: "ops")

    /// How often the store is pinged, and how old the last good ping may be.
    static let pingInterval: Duration = .seconds(2)
    static let pingStaleAfter: Duration = .seconds(6)

    private let drainConfiguration: DrainConfiguration

    init(options: ServerOptions, store: StorePart, metrics: GatewayMetrics, startedServices: [String]) {
        drainConfiguration = options.drain
        let state = OpsState(required: startedServices)
        self.metrics = metrics
        self.state = state
        self.store = store
        // Whether the store answered a ping lately, as /readyz's store check sees it.
        metrics.collection.onScrape {
            let reachable = StoreReadiness.isReachable(lastPingAge: state.lastPingAge, staleAfter: OpsPart.pingStaleAfter)
            metrics.storeReachable.unlabeled.set(reachable ? 1 : 0)
        }
        // The store pool's gauges are read at each scrape (nothing while the store starts).
        metrics.collection.onScrape {
            guard let pool = store.client?.poolStatistics() else { return }
            metrics.storePoolConnections.labels(PoolConnectionState.idle).set(Int64(pool.idle))
            metrics.storePoolConnections.labels(PoolConnectionState.inUse).set(Int64(pool.inUse))
            metrics.storePoolMaxConnections.unlabeled.set(Int64(pool.maximumConnections))
            metrics.storePoolWaiters.unlabeled.set(Int64(pool.waiting))
        }
        server = OpsServer(
            configuration: OpsServerConfiguration(host: options.opsAddress, port: options.opsPort ?? 9090),
            router: OpsRouter(collection: metrics.collection, readinessChecks: state.readinessChecks(store: store))
        )
    }

    /// The endpoint's run, with the store's ping loop as its child task: pinged until the
    /// shutdown (the ops endpoint stops last: /readyz reports the drain to the end).
    func run(_ context: ServiceContext) async throws {
        try await withThrowingDiscardingTaskGroup { group in
            group.addTask { [self] in await pingStore() }
            try await server.run(context)
            group.cancelAll()
        }
    }

    /// Pings the store every ``pingInterval`` until cancelled; `/readyz` reads the last success.
    private func pingStore() async {
        var wasReachable = true
        while !Task.isCancelled {
            if let client = store.client {
                do {
                    try await client.ping()
                    state.recordPing()
                    if !wasReachable { logger.notice("PostgreSQL reachable again") }
                    wasReachable = true
                } catch {
                    if wasReachable { logger.warning("PostgreSQL ping failed: \(error)") }
                    wasReachable = false
                }
            }
            try? await Task.sleep(for: OpsPart.pingInterval)
        }
    }

    /// Records that `service` finished starting (the store: migrations applied).
    ///
    /// The store's start ran the migrations over a live connection: that counts as the first
    /// successful ping, so `/readyz` agrees with the log's `msg=ready` line from the start
    /// rather than a ping period later.
    func serviceStarted(_ service: String) {
        if service == "store" { state.recordPing() }
        state.markStarted(service)
    }

    /// Fails `/readyz` from now on: the replica is shutting down.
    func beginDraining() {
        state.beginDraining()
        metrics.draining.unlabeled.set(1)
    }

    /// The graceful part of a shutdown: not ready, the load balancer window,
    /// goaway, in-flight commands up to the deadline (see docs/operations.md).
    /// Goaway, the in-flight count and releasing claims come from the layer that owns
    /// connections and ownership, through `hooks`.
    func drain(_ hooks: DrainHooks) async {
        let configuration = drainConfiguration
        logger.info("draining", [
            "load_balancer_window_seconds": configuration.loadBalancerWindow,
            "in_flight_deadline_seconds": configuration.inFlightDeadline,
        ])
        var hooks = hooks
        let stopBeingReady = hooks.stopBeingReady
        hooks.stopBeingReady = { [self] in
            beginDraining()
            await stopBeingReady()
        }
        let outcome = await DrainCoordinator(configuration: configuration).drain(hooks: hooks)
        if outcome.abandonedCommands > 0 {
            logger.warning("drain deadline passed with commands in flight", ["abandoned": outcome.abandonedCommands])
        }
        logger.info("drained")
    }
}

/// What `/readyz` reads: plain atomics and a small lock, written by the
/// start-up sequence and the ping loop.
final class OpsState: Sendable {
    private let clockOrigin = ContinuousClock.now
    /// Nanoseconds after `clockOrigin` of the last successful ping; -1 before the first.
    private let lastPing = Atomic<Int64>(-1)
    private let draining = Atomic<Bool>(false)
    private let started = Mutex<Set<String>>([])
    private let required: [String]

    init(required: [String]) { self.required = required }

    func recordPing() { lastPing.store(nanoseconds(since: clockOrigin), ordering: .relaxed) }
    func markStarted(_ service: String) { _ = started.withLock { $0.insert(service) } }
    func beginDraining() { draining.store(true, ordering: .relaxed) }

    private func nanoseconds(since origin: ContinuousClock.Instant) -> Int64 {
        let (seconds, attoseconds) = (ContinuousClock.now - origin).components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }

    /// How long ago the last successful ping was (nil: none yet).
    var lastPingAge: Duration? {
        let last = lastPing.load(ordering: .relaxed)
        guard last >= 0 else { return nil }
        return .nanoseconds(nanoseconds(since: clockOrigin) - last)
    }

    /// The store check (see ``StoreReadiness``): 503 until the store first started, then an
    /// outage is reported as degraded and the probe stays 200.
    func readinessChecks(store: StorePart) -> [ReadinessCheck] {
        [
            ReadinessCheck("store") { [self] in
                StoreReadiness.outcome(lastPingAge: lastPingAge, staleAfter: OpsPart.pingStaleAfter)
            },
            ReadinessCheck("migrations") { [self] in
                started.withLock { $0.contains("store") } ? .ready : .notReady("not applied yet")
            },
            ReadinessCheck("listeners") { [self] in
                let missing = started.withLock { done in required.filter { !done.contains($0) } }
                return missing.isEmpty ? .ready : .notReady("starting: \(missing.joined(separator: ", "))")
            },
            ReadinessCheck("draining") { [self] in
                draining.load(ordering: .relaxed) ? .notReady("shutting down") : .ready
            },
        ]
    }
}
