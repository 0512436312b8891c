import GatewayDomain

/// How the gateway service behaves: bounds, leases and limits.
public struct ServiceConfiguration: Sendable {
    /// A reader that sends no heartbeat for this long is offline and its owner is told.
    public var readerOfflineBound: Duration = .seconds(10)
    /// How long a session lives without a connection (its resume window).
    public var sessionLease: Duration = .seconds(30)
    /// Lifetime of a connection token when the request gives none.
    public var defaultConnectionTokenTTL: Duration = .seconds(600)
    /// The longest connection token lifetime a request may ask for.
    public var maximumConnectionTokenTTL: Duration = .seconds(86_400)
    /// How long a registration code stays valid before a fresh one is sent.
    public var registrationCodeLifetime: Duration = .seconds(600)
    /// How long the gateway waits for a reader's answer to a command.
    public var commandTimeout: Duration = .seconds(120)
    /// Discoveries a session may run back to back, then the sustained rate.
    public var discoveryBurst: Int = 5
    public var discoveriesPerSecond: Double = 1
    /// The name of this replica; its node id is the name plus a random suffix per incarnation.
    public var nodeName: String = "node"
    /// A replica that has not heartbeated in the node directory for this long is dead
    /// (its links are detached, its readers wait for a re-attach up to the offline bound).
    public var nodeLease: Duration = .seconds(10)
    /// How often this replica compares its memory with PostgreSQL's rows (NOTIFY may be lost).
    public var reconcileInterval: Duration = .seconds(2)
    /// Most readers compared with their rows each `reconcileInterval` (the comparison passes
    /// over a replica's readers in turns, so its cost per interval does not grow with the fleet).
    public var reconcileBatch: Int = 1_000
    /// Ownership claims (lanes' connects) sent to PostgreSQL at once; connects that arrive
    /// meanwhile leave together in the next one, as one statement and one commit (at most the
    /// store client's connections). One keeps PostgreSQL's work per connect lowest when the
    /// server's CPU is the bound: see docs/performance.md, "Connects beside pgbench".
    public var connectBatchesInFlight: Int = 1
    /// Failed authentications a source address may make (burst, then a sustained rate), and
    /// an account where a failure names one (PROTOCOL.md section 22).
    public var authFailuresPerSource: AuthFailureRule = .perSource
    public var authFailuresPerAccount: AuthFailureRule = .perAccount
    /// The clock of the software update rules (required_at, the 30-day rule); tests set one.
    public var updateClock: WallClock = .system
    /// The clock every service and the registry read (deadlines, leases, rate limits, the
    /// times the wire carries); tests set a manual one.
    public var clock: any ServiceClock = SystemServiceClock()
    /// How this replica delivers webhooks (PROTOCOL.md section 23).
    public var webhooks = WebhookDeliveryConfiguration()

    public init() {}

    /// How often the node heartbeats.
    var nodeHeartbeatInterval: Duration { max(.milliseconds(100), nodeLease / 5) }

    /// How often the sweeper checks reader heartbeats and session leases.
    var sweepInterval: Duration {
        let bound = readerOfflineBound / 10
        return max(.milliseconds(50), min(bound, .seconds(1)))
    }
}
