import GatewayCore
import GatewayDomain
import GatewayRegistry
import GatewayRepositories
import GatewayWire

extension LiveRegistry {
    /// Everything the registry hears, fed to ``LiveRegistry/handle(_:)``, its one entry. The named
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
        /// The link shows `code` (the previous one is withdrawn); the handler hears an admin's registration.
        case registrationCodeIssued(
            String, replacing: String?, link: LinkID, serial: String, expires: ContinuousClock.Instant, handler: RegistrationHandler
        )
        /// The link stops showing the code.
        case registrationWithdrawn(String, link: LinkID)
        /// An admin registered the code: the link's serial and handler are taken.
        case registrationTaken(String)

        // MARK: sessions
        /// A session opened here (OpenSession).
        case sessionOpened(RegistrySession)
        /// A call of the session arrived on `connection`.
        case sessionUsed(String, connection: UInt64, now: ContinuousClock.Instant, nowUnixMs: Int64, lease: Duration)
        /// A `SubscribeEvents` call of the session.
        case subscribed(String, call: ServerCall, connection: UInt64)
        /// The peer ended the session's stream `stream`.
        case subscriptionEnded(String, stream: EventStreamID)
        /// `OpenSession(resume)` came on `connection`.
        case sessionResuming(String, connection: UInt64)
        /// The session ends: its stream ends.
        case sessionEnded(String)
        /// A displaced session's next command consumes its refusal.
        case pendingRefusalTaken(SessionID)
        /// A session adopted from its row.
        case sessionAdopted(RegistrySession)
        /// Another replica adopted the session at `epoch`.
        case sessionMoved(SessionID, epoch: Int64)
        /// The lease renewal found these copies' rows moved on.
        case sessionsNotRenewed([SessionEpoch])
        /// A connection closed: sessions whose last connection it was are detached.
        case connectionClosed(UInt64, now: ContinuousClock.Instant)
        /// Every session is detached (the replica drains).
        case allSessionsDetached(now: ContinuousClock.Instant)
        /// A relay over the replica link reached `home`.
        case homeLearned(ReaderHomeCache, session: SessionID, reader: ReaderID)
        /// The cached home turned out wrong.
        case homeForgotten(SessionID)

        // MARK: discovery
        /// The session starts a discovery.
        case discoveryStarted(String, now: ContinuousClock.Instant)
        /// Discovery `id` waits for the store with `answer`.
        case discoveryWaiting(String, DiscoveryStateMachine.DiscoveryID, answer: DiscoveryAnswer)
        /// The store answered (or failed) discovery `id`.
        case discoveryListed(String, DiscoveryStateMachine.DiscoveryID, Result<[ReaderRecord], ServiceError>)
        /// Discovery `id` answers with `readers`.
        case discoveryAnswered(String, DiscoveryStateMachine.DiscoveryID, readers: [ReaderID])
        /// CancelDiscovery.
        case discoveryCancelled(String, named: DiscoveryStateMachine.DiscoveryID?)

        // MARK: commands
        /// A command of the session for the reader's link here, its outcome to `complete`.
        case commandDispatched(
            SessionID, reader: ReaderID, isCollect: Bool, reboot: Bool, deadline: ContinuousClock.Instant, complete: CommandCompletion
        )
        /// A loop relay: the session is checked and, when the link is here, the command registered.
        case commandRequested(
            String, connection: UInt64, reboot: Bool, cancelsCollect: Bool, deadline: ContinuousClock.Instant, now: ContinuousClock.Instant,
            nowUnixMs: Int64, lease: Duration, complete: CommandCompletion
        )
        /// A collect call of the session on the connection arrived (on its loop, before its task).
        case collectArrived(String, connection: UInt64)
        /// The collect reaches the reader's link here, its outcome to `complete`.
        case collectDispatched(CollectTicket, reader: ReaderID, deadline: ContinuousClock.Instant, complete: CommandCompletion)
        /// The collect was written to its link: a cancel registered meanwhile is written now.
        case collectSent(CollectTicket)
        /// The collect leaves for the replica holding the reader's link.
        case collectLeaving(CollectTicket)
        /// The collect ended.
        case collectEnded(CollectTicket)

        // MARK: ownership
        /// The store granted the reader to the session.
        case readerClaimed(
            ReaderID, session: SessionID, generation: OwnershipGeneration, lane: LaneLabel, posDeviceID: String, actions: [OwnershipAction],
            nowUnixMs: Int64
        )
        /// The session let go of the reader (before the store's answer is applied).
        case readerLetGo(ReaderID, session: SessionID)
        /// The store released the reader at `generation`.
        case readerReleased(
            ReaderID, generation: OwnershipGeneration, actions: [OwnershipAction], reason: ReaderGatewayV1.DisconnectReason, nowUnixMs: Int64
        )
        /// The store decided a change of the reader's owner that memory applies.
        case ownershipDecided(
            ReaderID, generation: OwnershipGeneration, actions: [OwnershipAction], reason: ReaderGatewayV1.DisconnectReason, nowUnixMs: Int64
        )
        /// A NOTIFY about the reader.
        case noticeReceived(ReaderID, generation: OwnershipGeneration, session: SessionID?, epoch: LinkEpoch, node: String?, me: String)
        /// Memory is brought in line with one reader's row.
        case ownershipChanged(OwnershipRow, me: String)
        /// A displaced session is told why; the commands the change interrupted fail.
        case sessionDisplaced(
            ReaderRegistry.Displaced, reason: ReaderGatewayV1.DisconnectReason?, takenByLane: String?, takenByPosDeviceID: String?, nowUnixMs: Int64
        )
        /// The others declared this replica dead.
        case fenced
        /// The store repaired a reader's row that went back in time: the sessions here whose
        /// ownership vanished are told.
        case storeRolledBack(StoreRollback, nowUnixMs: Int64)
        /// A status notice of a reader linked elsewhere, for its owner here.
        case remoteStatusReceived(ReaderGatewayV1.ReaderStatusChanged, reader: ReaderID, session: SessionID, nowUnixMs: Int64)

        // MARK: questions (nothing changes)
        /// The live status of each reader's link here.
        case linkStatusAsked([ReaderID])
        /// Whether the link is here and was asked to reboot.
        case rebootAsked(ReaderID, link: LinkID)
        /// Whether the code shown by a link here has expired.
        case registrationExpiryAsked(String, now: ContinuousClock.Instant)
        /// How many relayed commands are not answered yet.
        case pendingCommandsAsked
        /// The error a call of the session on `connection` fails with until it resumes.
        case resumeFirstAsked(String, connection: UInt64)
        /// The session held here with this token.
        case sessionAsked(token: String)
        /// The session held here with this id.
        case sessionAskedByID(SessionID)
        /// Who a relayed command's event is about (the session's reader, account and id).
        case commandEventSubjectAsked(token: String)
        /// The sessions to renew and to end.
        case leaseSweepAsked(now: ContinuousClock.Instant, lease: Duration)
        /// The sessions of an account (in a location's scope when given).
        case sessionsAsked(account: String, location: String?)
        /// Whether the session still owns the reader at `generation`.
        case holdsAsked(ReaderID, session: SessionID, generation: OwnershipGeneration)
        /// The home the session last relayed to.
        case homeAsked(SessionID)
        /// Whether a reader's row is behind what this replica remembers of it.
        case storeRollbackAsked(OwnershipRow)
        /// Every reader this replica cares about.
        case readersOfInterestAsked
        /// The owner here of a reader whose link is elsewhere.
        case remoteStatusRecipientAsked(ReaderID)
        /// The account's readers of a device type owned here, linked here and idle.
        case idleOwnedReadersAsked(account: String, deviceType: ReaderGatewayV1.DeviceType)
    }

    /// What ``LiveRegistry/handle(_:)`` answers once the event's work is performed: the one result
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
        case commandEventSubject((reader: ReaderID, account: String, session: SessionID)?)
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
        case collectTicket(CollectTicket?)
        case collectDispatch(CollectDispatch)
        case loopRelay(LoopRelay)
        case ownershipChange(displaced: [ReaderRegistry.Displaced], linkDropped: Bool)
        case fenced(ReaderRegistry.Fenced)
        case readers([ReaderID])
        case storeRollback(StoreRollback?)
        case idleReaders([(reader: ReaderID, status: LinkStatus, location: String)])
    }
}
