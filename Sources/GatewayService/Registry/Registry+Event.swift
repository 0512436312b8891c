import GatewayCore
import GatewayDomain
import GatewayRegistry
import GatewayRepositories
import GatewayWire

extension Registry {
    /// Everything the registry hears, fed to ``Registry/handle(_:)``, its one entry. The named
    /// methods of this folder build one of these and read the ``Answer``; the rest of the
    /// service calls those methods.
    enum Event: Sendable {
        // MARK: links
        /// A new Attach call needs a link id.
        case linkStarted
        /// A second attach of a reader whose link is live here takes its place.
        case linkReattached(ReaderID, link: LinkID, call: ServerCall, described: ReaderGatewayV1.Reader, status: LinkStatus, now: ContinuousClock.Instant)
        /// The store recorded the attach: the link is online here.
        case linkAttached(
            ReaderID, link: LinkID, call: ServerCall, epoch: LinkEpoch, described: ReaderGatewayV1.Reader, status: LinkStatus, now: ContinuousClock.Instant
        )
        /// The link's call ended; `orderly`: the device ended it saying why.
        case linkEnded(ReaderID, link: LinkID, orderly: Bool)
        /// End the Attach call of the reader's link here with `status`.
        case linkEndAsked(ReaderID, status: ReaderGatewayV1.Status)
        /// The periodic sweep.
        case ticked(heartbeatBound: Duration, now: ContinuousClock.Instant)
        /// The reader answered a command.
        case commandAnswered(ReaderGatewayV1.CommandResult, reader: ReaderID, link: LinkID, now: ContinuousClock.Instant)
        /// A heartbeat on the link.
        case heartbeat(
            ReaderID, link: LinkID, activity: ReaderGatewayV1.ReaderActivity, batteryLevel: Float?, ipAddress: String,
            now: ContinuousClock.Instant, nowUnixMs: Int64
        )
        /// The reader reported update progress.
        case updateProgress(ReaderID, progress: Float, nowUnixMs: Int64)
        /// A new link is told which lane owns its reader.
        case ownerAnnounced(ReaderID)
        /// The loss after a reboot was recorded.
        case rebootReported(ReaderID)
        /// Every link's silence starts at `now`.
        case silenceForgiven(now: ContinuousClock.Instant)
        /// A command relayed from another replica, fenced by the link's epoch and the generation.
        case replicaRelayRequested(ReaderID, epoch: LinkEpoch, generation: OwnershipGeneration)
        /// A drain waits for no relayed command to be pending.
        case idleAwaited(Latch)
        /// A link reported its software version.
        case softwareVersionReported(ReaderID, link: LinkID, version: String)
        /// A software update event for the reader's owner here.
        case softwareUpdateEvent(ReaderID, ReaderGatewayV1.SessionEvent.Event, nowUnixMs: Int64)

        // MARK: registration codes
        case registrationCodeIssued(
            String, replacing: String?, link: LinkID, serial: String, expires: ContinuousClock.Instant, handler: RegistrationHandler
        )
        case registrationWithdrawn(String, link: LinkID)
        case registrationTaken(String)

        // MARK: sessions
        case sessionOpened(RegistrySession)
        case sessionUsed(String, connection: UInt64, now: ContinuousClock.Instant, nowUnixMs: Int64, lease: Duration)
        /// A `SubscribeEvents` call of the session.
        case subscribed(String, call: ServerCall, connection: UInt64)
        /// The peer ended the session's stream `stream`.
        case subscriptionEnded(String, stream: EventStreamID)
        case sessionResuming(String, connection: UInt64)
        case sessionEnded(String)
        /// A displaced session's next command consumes its refusal.
        case pendingRefusalTaken(SessionID)
        case sessionAdopted(RegistrySession)
        case sessionMoved(SessionID, epoch: Int64)
        case sessionsNotRenewed([SessionEpoch])
        case connectionClosed(UInt64, now: ContinuousClock.Instant)
        case allSessionsDetached(now: ContinuousClock.Instant)
        case homeLearned(ReaderHomeCache, session: SessionID, reader: ReaderID)
        case homeForgotten(SessionID)

        // MARK: discovery
        case discoveryStarted(String, now: ContinuousClock.Instant)
        case discoveryWaiting(String, DiscoveryStateMachine.DiscoveryID, answer: DiscoveryAnswer)
        case discoveryListed(String, DiscoveryStateMachine.DiscoveryID, Result<[ReaderRecord], ServiceError>)
        case discoveryAnswered(String, DiscoveryStateMachine.DiscoveryID, readers: [ReaderID])
        case discoveryCancelled(String, named: DiscoveryStateMachine.DiscoveryID?)

        // MARK: commands
        case commandDispatched(
            SessionID, reader: ReaderID, isCollect: Bool, reboot: Bool, deadline: ContinuousClock.Instant, complete: CommandCompletion
        )
        case commandRequested(
            String, connection: UInt64, reboot: Bool, deadline: ContinuousClock.Instant, now: ContinuousClock.Instant, nowUnixMs: Int64,
            lease: Duration, complete: CommandCompletion
        )

        // MARK: ownership
        case readerClaimed(
            ReaderID, session: SessionID, generation: OwnershipGeneration, lane: LaneLabel, posDeviceID: String, actions: [OwnershipAction],
            nowUnixMs: Int64
        )
        case readerLetGo(ReaderID, session: SessionID)
        case readerReleased(
            ReaderID, generation: OwnershipGeneration, actions: [OwnershipAction], reason: ReaderGatewayV1.DisconnectReason, nowUnixMs: Int64
        )
        case ownershipDecided(
            ReaderID, generation: OwnershipGeneration, actions: [OwnershipAction], reason: ReaderGatewayV1.DisconnectReason, nowUnixMs: Int64
        )
        case noticeReceived(ReaderID, generation: OwnershipGeneration, session: SessionID?, epoch: LinkEpoch, node: String?, me: String)
        case ownershipChanged(OwnershipRow, me: String)
        case sessionDisplaced(
            ReaderRegistry.Displaced, reason: ReaderGatewayV1.DisconnectReason?, takenByLane: String?, takenByPosDeviceID: String?, nowUnixMs: Int64
        )
        case fenced
        case remoteStatusReceived(ReaderGatewayV1.ReaderStatusChanged, reader: ReaderID, session: SessionID, nowUnixMs: Int64)

        // MARK: questions (nothing changes)
        case linkStatusAsked([ReaderID])
        case rebootAsked(ReaderID, link: LinkID)
        case registrationExpiryAsked(String, now: ContinuousClock.Instant)
        case pendingCommandsAsked
        case resumeFirstAsked(String, connection: UInt64)
        case sessionAsked(token: String)
        case sessionAskedByID(SessionID)
        case leaseSweepAsked(now: ContinuousClock.Instant, lease: Duration)
        case sessionsAsked(account: String, location: String?)
        case holdsAsked(ReaderID, session: SessionID, generation: OwnershipGeneration)
        case homeAsked(SessionID)
        case readersOfInterestAsked
        case remoteStatusRecipientAsked(ReaderID)
        case idleOwnedReadersAsked(account: String, deviceType: ReaderGatewayV1.DeviceType)
    }

    /// What ``Registry/handle(_:)`` answers once the event's work is performed: the one result
    /// type of the registry (the named method that fed the event reads its case).
    enum Answer: Sendable {
        /// The event has no result.
        case done
        case flag(Bool)
        case count(Int)
        case linkID(LinkID)
        case epoch(LinkEpoch?)
        case endedLink(ReaderRegistry.EndedLink?)
        case linkStatus(LinkStatus?)
        case linkStatuses([LinkStatus?])
        case registration((serial: String, handler: RegistrationHandler)?)
        case fence(ReaderRegistry.ReplicaRelayFence)
        case resumeFirst(ServiceError?)
        /// The session was subscribed with this stream id (nil: no such session).
        case subscribed(EventStreamID?)
        case session(RegistrySession?)
        case sessions([RegistrySession])
        case sessionIDs([SessionID])
        case adoption(ReaderRegistry.Adoption)
        case sweep(attached: [SessionEpoch], expired: [String])
        case home(ReaderHomeCache?)
        /// A refusal, and the events it must follow (``SessionEventStream/afterEvents(through:_:)``).
        case refusal(OwnershipRefusal?, after: (stream: SessionEventStream, through: UInt64)?)
        case discoveryStart(DiscoveryStateMachine.StartResult?)
        case discoveryAnswer((DiscoveryStateMachine.AnswerResult, [LinkStatus?])?)
        case dispatched((ServerCall, UInt64)?)
        case loopRelay(LoopRelay)
        case ownershipChange(displaced: [ReaderRegistry.Displaced], linkDropped: Bool)
        case fenced(ReaderRegistry.Fenced)
        case readers([ReaderID])
        case idleReaders([(reader: ReaderID, status: LinkStatus, location: String)])
    }
}
