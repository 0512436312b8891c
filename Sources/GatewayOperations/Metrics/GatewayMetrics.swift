/// Every metric the gateway exports, declared in one place so that each
/// layer only records into them.
///
/// Create one per process at start-up and hand it to the components:
///
///     let metrics = GatewayMetrics(callMethods: ["DiscoverReaders", "ConnectReader", …])
///     metrics.claims.labels(ClaimOutcome.replaced).increment()
///     metrics.claimDuration.unlabeled.observe(elapsed)
///     metrics.connections.labels(ConnectionKind.lane, ConnectionState.active).increment()
///
/// Every label takes values from a set fixed here (or, for `method`, fixed
/// when the collection is created), so the exposition stays bounded whatever
/// the peers send.
public struct GatewayMetrics: Sendable {
    /// The collection that renders `/metrics`.
    public let collection: MetricsCollection

    /// Open connections by kind and state (`reader_gateway_connections`), set at scrape time
    /// from the TLS listeners' counts.
    public let connections: MetricFamily<Gauge>
    /// Connections accepted since start, by kind.
    public let connectionsAccepted: MetricFamily<Counter>
    /// TLS handshakes finished, by kind and result.
    public let handshakes: MetricFamily<Counter>
    /// TLS handshakes that failed, by kind and reason.
    public let handshakeFailures: MetricFamily<Counter>
    /// Of the successful handshakes, those that resumed a TLS session (a ticket: no certificate exchange).
    public let handshakesResumed: MetricFamily<Counter>
    /// Session tickets issued on long-lived reader links (half a ticket lifetime after their last one).
    public let ticketsRenewed: MetricFamily<Counter>
    /// Calls finished, by method and canonical status.
    public let calls: MetricFamily<Counter>
    /// Lane requests to connect to a reader, by outcome.
    public let claims: MetricFamily<Counter>
    /// Time to decide a claim, including its PostgreSQL transaction.
    public let claimDuration: MetricFamily<Histogram>
    /// Time from a lane's command to the reader's answer, relayed through the gateway.
    public let relayedCommandDuration: MetricFamily<Histogram>
    /// Connections moved to the event loop of the connection they relay to.
    public let connectionMoves: MetricFamily<Counter>
    /// Readers with a live connection to this replica.
    public let readersOnline: MetricFamily<Gauge>
    /// Lane sessions open on this replica.
    public let sessions: MetricFamily<Gauge>
    /// Failed PostgreSQL operations, by kind.
    public let storeErrors: MetricFamily<Counter>
    /// Readers whose row went back in time (detected), rows repaired, sessions told.
    public let storeRollbacks: MetricFamily<Counter>
    /// Command outcome events dropped because PostgreSQL could not keep up with them.
    public let eventsDropped: MetricFamily<Counter>
    /// Webhook deliveries: per endpoint (``WebhookMetrics``).
    public let webhooks: WebhookMetrics
    /// 1 while the last store ping is recent, 0 during a store outage (`/readyz` stays 200).
    public let storeReachable: MetricFamily<Gauge>
    /// PostgreSQL pool connections, by state.
    public let storePoolConnections: MetricFamily<Gauge>
    /// The PostgreSQL pool's configured maximum.
    public let storePoolMaxConnections: MetricFamily<Gauge>
    /// Callers waiting for a PostgreSQL pool connection.
    public let storePoolWaiters: MetricFamily<Gauge>
    /// Inbound frames refused before reaching a handler, by reason.
    public let framesRejected: MetricFamily<Counter>
    /// 1 while this replica drains (not ready, telling peers to go away), else 0.
    public let draining: MetricFamily<Gauge>
    /// Always 1; the labels carry the version.
    public let buildInfo: MetricFamily<Gauge>
    /// WebSocket upgrades, console sign-ins, fleet watchers.
    public let browser: BrowserMetrics
    /// Failed authentications and lock-outs.
    public let authentication: AuthenticationMetrics

    /// Declares the gateway's metrics in a new collection.
    ///
    /// - Parameters:
    ///   - callMethods: the method names the wire protocol defines; any other
    ///     name is counted under `method="other"`.
    ///   - version: the release written in `reader_gateway_build_info`.
    ///   - schema: the newest database schema the build knows, beside it.
    ///   - includeProcessMetrics: adds resident memory, open descriptors and
    ///     start time read from `/proc/self`.
    public init(callMethods: [String] = [], version: String = "dev", schema: String = "", includeProcessMetrics: Bool = true) {
        let collection = MetricsCollection()
        let kind = MetricLabel("kind", ConnectionKind.self)
        self.collection = collection
        connections = collection.gauge(
            "reader_gateway_connections",
            help: "Open connections by kind and state; a public-port connection is a reader (verified certificate) or a lane (none) "
                + "once its handshake succeeded, handshaking under kind reader before.",
            labels: [kind, MetricLabel("state", ConnectionState.self)]
        )
        connectionsAccepted = collection.counter(
            "reader_gateway_connections_accepted_total",
            help: "Connections accepted since start, by kind, counted when the handshake ends (lane: succeeded without a certificate; reader: succeeded with one, or failed; peer: the internal port).",
            labels: [kind]
        )
        handshakes = collection.counter(
            "reader_gateway_tls_handshakes_total", help: "TLS handshakes ended, by kind and result (public-port failures count under kind reader).",
            labels: [kind, MetricLabel("result", HandshakeResult.self)]
        )
        handshakeFailures = collection.counter(
            "reader_gateway_tls_handshake_failures_total", help: "TLS handshakes that failed, by kind and reason (public-port failures count under kind reader).",
            labels: [kind, MetricLabel("reason", HandshakeFailureReason.self)]
        )
        handshakesResumed = collection.counter(
            "reader_gateway_tls_handshakes_resumed_total",
            help: "Of the successful TLS handshakes (reader_gateway_tls_handshakes_total{result=\"success\"}), those that resumed a session from a ticket, by kind (a resumed reader's identity is the certificate verified when the session was made).",
            labels: [kind]
        )
        ticketsRenewed = collection.counter(
            "reader_gateway_tls_tickets_renewed_total",
            help: "Session tickets issued on established reader links: a link attached for longer than half the ticket lifetime since its last ticket gets a fresh one with its next record, so it still resumes when it re-attaches."
        )
        calls = collection.counter(
            "reader_gateway_calls_total", help: "Calls finished, by method and canonical status.",
            labels: [MetricLabel("method", values: callMethods), MetricLabel("status", CallStatus.self)]
        )
        claims = collection.counter(
            "reader_gateway_claims_total",
            help: "Lane requests to connect to a reader, by outcome (connected, replaced, refused_busy).",
            labels: [MetricLabel("outcome", ClaimOutcome.self)]
        )
        claimDuration = collection.histogram(
            "reader_gateway_claim_duration_seconds",
            help: "Time to decide a claim, including its PostgreSQL transaction.",
            buckets: .fastOperationSeconds
        )
        relayedCommandDuration = collection.histogram(
            "reader_gateway_relayed_command_duration_seconds",
            help: "Time from a lane's command to the reader's answer.",
            buckets: .relayedCommandSeconds
        )
        connectionMoves = collection.counter(
            "reader_gateway_connection_moves_total",
            help: "Reader connections moved to the event loop of their owner's connection (relays then stay on one thread)."
        )
        readersOnline = collection.gauge("reader_gateway_readers_online", help: "Readers connected to this replica.")
        sessions = collection.gauge("reader_gateway_sessions", help: "Lane sessions open on this replica.")
        storeErrors = collection.counter(
            "reader_gateway_store_errors_total", help: "Failed PostgreSQL operations, by kind.",
            labels: [MetricLabel("kind", StoreErrorKind.self)]
        )
        storeRollbacks = collection.counter(
            "reader_gateway_store_rollbacks_total",
            help: "Ownership rows found behind what this replica knows after a failover (detected), repaired, and sessions told.",
            labels: [MetricLabel("step", StoreRollbackStep.self)]
        )
        eventsDropped = collection.counter(
            "reader_gateway_events_dropped_total",
            help: "Command outcome events dropped from the event log because PostgreSQL fell behind (the replica's queue was full)."
        )
        webhooks = WebhookMetrics(collection)
        storeReachable = collection.gauge(
            "reader_gateway_store_reachable", help: "1 while PostgreSQL answered a ping within the last 6 s, else 0."
        )
        storePoolConnections = collection.gauge(
            "reader_gateway_store_pool_connections", help: "PostgreSQL pool connections, by state.",
            labels: [MetricLabel("state", PoolConnectionState.self)]
        )
        storePoolMaxConnections = collection.gauge(
            "reader_gateway_store_pool_max_connections", help: "The PostgreSQL pool's configured maximum."
        )
        storePoolWaiters = collection.gauge(
            "reader_gateway_store_pool_waiters", help: "Callers waiting for a PostgreSQL pool connection."
        )
        framesRejected = collection.counter(
            "reader_gateway_frames_rejected_total", help: "Inbound frames refused before reaching a handler, by reason.",
            labels: [MetricLabel("reason", FrameRejectReason.self)]
        )
        draining = collection.gauge("reader_gateway_draining", help: "1 while this replica drains, else 0.")
        buildInfo = collection.gauge(
            "reader_gateway_build_info", help: "Always 1; version names the running release, schema the newest database schema it knows.",
            labels: [MetricLabel("version", values: [version]), MetricLabel("schema", values: [schema])]
        )
        buildInfo.labels(version, schema).set(1)
        browser = BrowserMetrics(collection: collection)
        authentication = AuthenticationMetrics(collection: collection)
        if includeProcessMetrics { ProcessMetrics.register(in: collection) }
    }
}
