import GatewayDomain
import GatewayPostgres
import GatewayRepositories
import GatewayWire

/// What a command relayed to a reader ended with.
enum CommandOutcome: Sendable {
    /// The reader answered.
    case answered(ReaderGatewayV1.CommandResult)
    /// The gateway ended it (link lost, takeover, timeout).
    case failed(ServiceError)
}

/// A command waiting for the reader's answer.
struct PendingCommand: Sendable {
    let session: SessionID
    /// Hands the command its outcome (called once, outside the lock, on any thread).
    let complete: @Sendable (CommandOutcome) -> Void
    let isCollect: Bool
    /// When the command fails with READER_TIMEOUT if the reader has not answered (the sweeper checks).
    let deadline: ContinuousClock.Instant
}

/// One registered reader's live link to this gateway.
struct ReaderLinkState: Sendable {
    /// Unique per Attach call in this process (a replacing link gets a new one).
    var linkID: UInt64
    var call: ServerCall
    var epoch: LinkEpoch
    var record: ReaderRecord
    var activity: ReaderGatewayV1.ReaderActivity = .idle
    var ipAddress: String = ""
    var batteryLevel: Float?
    var lastHeartbeat: ContinuousClock.Instant
    var nextCommandID: UInt64 = 1
    var pending: [UInt64: PendingCommand] = [:]
    /// Set when RebootReader was relayed: the coming loss is a reboot.
    var rebootRequested = false
    /// The newest ownership generation this replica has seen for the reader: a
    /// relayed command from an older generation is refused here, at the link.
    var knownGeneration = OwnershipGeneration.initial
}

/// An unregistered reader showing a registration code.
struct PendingRegistration: Sendable {
    var linkID: UInt64
    var serial: String
    var deviceType: ReaderGatewayV1.DeviceType
    var softwareVersion: String
    var expires: ContinuousClock.Instant
    /// Told when an admin registers the code (the reader and its credential); returns
    /// the reader once its link is online, or nil when the link ended first.
    var registered: @Sendable (ReaderRecord, String) async -> ReaderGatewayV1.Reader?
}

/// One point-of-sale session.
struct SessionState: Sendable {
    var id: SessionID
    var token: String
    var accountID: String
    /// The location the connection token was scoped to, if any.
    var locationScope: String?
    var posDeviceID: String
    var lane: LaneLabel
    var discovery: DiscoveryStateMachine
    /// Reader ids of the latest discovery that answered.
    var discovered: Set<String> = []
    var reader: ReaderID?
    var generation = OwnershipGeneration.initial
    /// Where the owned reader's link lives when not on this replica (cached; nil: look it up).
    var home: ReaderHome?
    /// Set when the session lost its reader to another session: its next command fails with it.
    var pendingRefusal: OwnershipRefusal?
    var eventCall: ServerCall?
    var bufferedEvents: [ReaderGatewayV1.SessionEvent] = []
    var nextSequence: UInt64 = 1
    /// Connections that carried calls of this session and are still open.
    var connections: Set<UInt64> = []
    var openedAtUnixMs: Int64
    var lastSeenUnixMs: Int64
    /// When the session's last connection closed; nil while attached.
    var detachedSince: ContinuousClock.Instant?
}

/// A `DiscoverReaders` call waiting for the store's readers: answered by the store, or
/// at once with `DISCOVERY_CANCELED` when its discovery is cancelled or superseded.
struct DiscoveryWaiter: Sendable {
    var discovery: DiscoveryStateMachine.DiscoveryID
    var answer: CheckedContinuation<Result<[ReaderRecord], ServiceError>, Never>
}

/// Everything the gateway keeps in memory, behind one lock.
struct GatewayState: Sendable {
    var links: [ReaderID: ReaderLinkState] = [:]
    /// Readers whose link ended after a reboot command, while the loss is being recorded: the
    /// history row says `reader_lost`, so a notice that races the link's own report reads the
    /// reason here (`Gateway+Notices.swift`).
    var rebootingReaders: Set<ReaderID> = []
    var registrations: [String: PendingRegistration] = [:]
    var sessions: [String: SessionState] = [:]
    var sessionTokens: [SessionID: String] = [:]
    /// The discovery waiting for its readers, by session token (at most one per session:
    /// the running one). Kept apart from the sessions so that whatever happens to a
    /// session, the store's answer still finds and resumes its waiter.
    var discoveryWaiters: [String: DiscoveryWaiter] = [:]
    var nextLinkID: UInt64 = 1

    /// Removes and returns the waiter of discovery `id` of session `token`, if it still waits.
    mutating func takeDiscoveryWaiter(_ token: String, _ id: DiscoveryStateMachine.DiscoveryID) -> DiscoveryWaiter? {
        guard discoveryWaiters[token]?.discovery == id else { return nil }
        return discoveryWaiters.removeValue(forKey: token)
    }

    /// The session that owns `reader` (per this replica's memory).
    func owner(of reader: ReaderID) -> SessionState? {
        sessions.values.first { $0.reader == reader }
    }

    func session(id: SessionID) -> SessionState? {
        sessionTokens[id].flatMap { sessions[$0] }
    }

    /// Registers a command on the link at `index`, in place (neither the link nor its
    /// pending table is copied): the link's call and the command's id. With `generation`
    /// (the generation the session owns the reader at) the relay is fenced at the link:
    /// nil, and nothing registered, when the link has seen a newer owner.
    mutating func registerCommand(
        at index: [ReaderID: ReaderLinkState].Index,
        session: SessionID,
        ifCurrent generation: OwnershipGeneration? = nil,
        isCollect: Bool,
        reboot: Bool,
        deadline: ContinuousClock.Instant,
        complete: @escaping @Sendable (CommandOutcome) -> Void
    ) -> (ServerCall, UInt64)? {
        Self.register(
            on: &links.values[index],
            PendingCommand(session: session, complete: complete, isCollect: isCollect, deadline: deadline),
            reboot: reboot,
            ifCurrent: generation
        )
    }

    /// Through `inout`, so the link is modified in place and never copied.
    private static func register(
        on link: inout ReaderLinkState, _ command: PendingCommand, reboot: Bool, ifCurrent generation: OwnershipGeneration?
    ) -> (ServerCall, UInt64)? {
        if let generation, link.knownGeneration > generation { return nil }
        let commandID = link.nextCommandID
        link.nextCommandID += 1
        link.pending[commandID] = command
        if reboot { link.rebootRequested = true }
        return (link.call, commandID)
    }

    mutating func withSession<T>(id: SessionID, _ body: (inout SessionState) -> T) -> T? {
        guard let token = sessionTokens[id], sessions[token] != nil else { return nil }
        return body(&sessions[token]!)
    }
}
