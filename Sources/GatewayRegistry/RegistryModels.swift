import GatewayDomain
import GatewayWire

/// What a reader reports about itself on its link (heartbeats), shown live.
public struct LinkStatus: Hashable, Sendable {
    public var activity: ReaderGatewayV1.ReaderActivity = .idle
    public var ipAddress: String = ""
    public var batteryLevel: Float?
    public var softwareVersion: String = ""

    public init(activity: ReaderGatewayV1.ReaderActivity = .idle, ipAddress: String = "", batteryLevel: Float? = nil, softwareVersion: String = "") {
        self.activity = activity
        self.ipAddress = ipAddress
        self.batteryLevel = batteryLevel
        self.softwareVersion = softwareVersion
    }

    /// `reader` (as the store describes it) as it is live on this link at `nowUnixMs`.
    public func render(_ reader: ReaderGatewayV1.Reader, nowUnixMs: Int64) -> ReaderGatewayV1.Reader {
        var live = reader
        live.networkStatus = .online
        live.activity = activity
        live.ipAddress = ipAddress
        live.batteryLevel = batteryLevel
        live.softwareVersion = softwareVersion
        live.lastSeenUnixMs = nowUnixMs
        return live
    }
}

/// A command waiting for the reader's answer.
public struct PendingCommand: Hashable, Sendable {
    public var session: SessionID
    public var isCollect: Bool
    /// When the command fails with READER_TIMEOUT if the reader has not answered.
    public var deadline: ContinuousClock.Instant
}

/// One registered reader's live link to this replica.
public struct RegistryLink: Sendable {
    public internal(set) var id: LinkID
    public internal(set) var reader: ReaderID
    public internal(set) var epoch: LinkEpoch
    /// The reader as the store described it when the link came up (the base of its status events).
    public internal(set) var described: ReaderGatewayV1.Reader
    public internal(set) var status: LinkStatus
    public internal(set) var lastHeartbeat: ContinuousClock.Instant
    var nextCommandID: UInt64 = 1
    public internal(set) var pending: [UInt64: PendingCommand] = [:]
    /// Set when RebootReader was relayed: the coming loss is a reboot.
    public internal(set) var rebootRequested = false
    /// The newest ownership generation this replica has seen for the reader: a relayed
    /// command from an older generation is refused here, at the link.
    public internal(set) var knownGeneration = OwnershipGeneration.initial
}

/// An unregistered reader showing a registration code.
public struct PendingRegistration: Hashable, Sendable {
    public var link: LinkID
    public var serial: String
    public var expires: ContinuousClock.Instant
    public init(link: LinkID, serial: String, expires: ContinuousClock.Instant) {
        self.link = link
        self.serial = serial
        self.expires = expires
    }
}

/// One point-of-sale session held by this replica.
public struct RegistrySession: Sendable {
    public var id: SessionID
    public var token: String
    public var accountID: String
    /// The location the connection token was scoped to, if any.
    public var locationScope: String?
    public var posDeviceID: String
    public var lane: LaneLabel
    public var discovery: DiscoveryStateMachine
    /// Reader ids of the latest discovery that answered.
    public internal(set) var discovered: Set<String> = []
    /// The reader the session owns (per this replica's memory); changed only through the
    /// registry, which keeps its index by reader.
    public internal(set) var reader: ReaderID?
    public internal(set) var generation = OwnershipGeneration.initial
    /// Where the owned reader's link lives when not on this replica (cached; nil: look it up).
    public internal(set) var home: ReaderHomeCache?
    /// Set when the session lost its reader: its next command fails with it.
    public internal(set) var pendingRefusal: OwnershipRefusal?
    /// The session's collect on its way to the reader (see ``CollectInFlight``).
    public internal(set) var collect: CollectInFlight?
    public internal(set) var stream: EventStreamID?
    /// The last `disconnected` event the session was sent: while its armed refusal
    /// (``pendingRefusal``) stands, a new subscription gets it again, since the stream it
    /// went to may be one the lane had already left (a connection it dropped).
    public internal(set) var lastLoss: SessionNotice?
    /// The connection that carries ``stream``.
    public internal(set) var streamConnection: UInt64?
    public internal(set) var bufferedEvents: [SessionNotice] = []
    public internal(set) var nextSequence: UInt64 = 1
    /// Connections that carried calls of this session and are still open.
    public internal(set) var connections: Set<UInt64> = []
    public var openedAtUnixMs: Int64
    public internal(set) var lastSeenUnixMs: Int64
    /// The epoch of the session's row this copy was made from (`sdk_sessions.epoch`, which
    /// grows by one each time a replica adopts the session). A copy older than the row's is
    /// stale: it is dropped, never answered from.
    public internal(set) var epoch: Int64
    /// When the session's last connection closed; nil while attached.
    public internal(set) var detachedSince: ContinuousClock.Instant?

    /// A session as opened (or adopted) on `connection`, owning `reader` at `generation` if given;
    /// `discovered` holds the reader ids of `discovery`'s answered discovery (an adopted session's,
    /// as its row keeps them).
    public init(
        id: SessionID, token: String, accountID: String, locationScope: String?, posDeviceID: String, lane: LaneLabel,
        discovery: DiscoveryStateMachine, discovered: Set<String> = [], connection: UInt64, nowUnixMs: Int64,
        reader: ReaderID? = nil, generation: OwnershipGeneration = .initial, epoch: Int64 = 1
    ) {
        self.epoch = epoch
        self.id = id
        self.token = token
        self.accountID = accountID
        self.locationScope = locationScope
        self.posDeviceID = posDeviceID
        self.lane = lane
        self.discovery = discovery
        self.discovered = discovered
        self.connections = [connection]
        self.openedAtUnixMs = nowUnixMs
        self.lastSeenUnixMs = nowUnixMs
        self.reader = reader
        self.generation = generation
    }

    /// Whether the lease of a detached session ran out at `now`.
    public func leaseExpired(at now: ContinuousClock.Instant, lease: Duration) -> Bool {
        guard let since = detachedSince else { return false }
        return now - since >= lease
    }
}

/// A session held here and the epoch of the row its copy was made from.
public struct SessionEpoch: Hashable, Sendable {
    public var id: SessionID
    public var epoch: Int64
    public init(id: SessionID, epoch: Int64) {
        self.id = id
        self.epoch = epoch
    }
}

/// One reader's ownership row as the store has it now (after a notice, or a reconcile).
public struct OwnershipRow: Hashable, Sendable {
    public var reader: ReaderID
    public var generation: OwnershipGeneration
    /// The owning session (nil: nobody).
    public var session: SessionID?
    public var laneLabel: String?
    public var epoch: LinkEpoch
    /// The node holding the link of ``epoch`` (nil: none).
    public var node: String?

    public init(reader: ReaderID, generation: OwnershipGeneration, session: SessionID?, laneLabel: String?, epoch: LinkEpoch, node: String?) {
        self.reader = reader
        self.generation = generation
        self.session = session
        self.laneLabel = laneLabel
        self.epoch = epoch
        self.node = node
    }
}
