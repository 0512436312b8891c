import GatewayDomain
import GatewayRegistry
import GatewayWire

extension LiveRegistry {
    /// Registers a command of `session` on the reader's link (its outcome goes to
    /// `complete`): the link's call and the command's id, or nil when the reader has no
    /// link here (`complete` is not called).
    func dispatch(
        _ session: SessionID, to reader: ReaderID, isCollect: Bool, reboot: Bool, deadline: ContinuousClock.Instant,
        complete: @escaping CommandCompletion
    ) -> (ServerCall, UInt64)? {
        let event = Event.commandDispatched(session, reader: reader, isCollect: isCollect, reboot: reboot, deadline: deadline, complete: complete)
        guard case .dispatched(let dispatched) = handle(event) else { return nil }
        return dispatched
    }

    /// Who the event of a command relayed for the session is about: its reader, account and id
    /// (nil: the session ended meanwhile, or owns no reader).
    func commandEventSubject(token: String) -> (reader: ReaderID, account: String, session: SessionID)? {
        guard case .commandEventSubject(let subject) = handle(.commandEventSubjectAsked(token: token)) else { return nil }
        return subject
    }

    /// Where a loop relay goes, decided under one lock.
    enum LoopRelay {
        /// Down the link here: send the command with this id on the reader's call.
        case local(ServerCall, UInt64, ReaderRegistry.OwnedReader)
        case remote(ReaderRegistry.OwnedReader)
        /// The session's generation is older than the link's newest.
        case stale(ReaderRegistry.OwnedReader)
        /// No such session in memory: it may be adopted from PostgreSQL.
        case unknownSession
        case refused(ServiceError)
        /// Refused for a loss whose event (numbered up to `through`) may still be on its way
        /// to the session's stream: end the call after it (``SessionEventStream/afterEvents(through:_:)``).
        case refusedAfterEvents(ServiceError, SessionEventStream, through: UInt64)
        /// A cancel reached the session's collect before the collect reached the link: the
        /// collect ends unsent (COMMAND_CANCELED); the cancel is answered at once.
        case cancelledBeforeLink
        /// A cancel registered on the link, written by the collect's sender right after the
        /// collect (its answer comes back as any command's).
        case afterCollect(ReaderRegistry.OwnedReader)
    }

    /// Where a collect goes when it reaches the reader's link here.
    enum CollectDispatch {
        /// Write the collect with this id on the reader's call, then report ``collectSent(_:)``.
        case registered(ServerCall, UInt64)
        /// A cancel came first: the collect fails with COMMAND_CANCELED, unsent.
        case cancelled
        /// The reader has no link here.
        case noLink
    }

    /// The loop relay's one lock: the session is checked and, when the reader's link is
    /// here, the command registered on it with `complete`.
    func commandRequested(
        _ token: String, connection: UInt64, reboot: Bool, cancelsCollect: Bool, deadline: ContinuousClock.Instant, lease: Duration,
        complete: @escaping CommandCompletion
    ) -> LoopRelay {
        let event = Event.commandRequested(
            token, connection: connection, reboot: reboot, cancelsCollect: cancelsCollect, deadline: deadline, now: clock.now,
            nowUnixMs: clock.nowUnixMs, lease: lease, complete: complete
        )
        guard case .loopRelay(let relay) = handle(event) else { return .refused(.refusal(.readerOffline)) }
        return relay
    }
}

extension LiveRegistry {
    // A session's collect, named from its arrival so that a cancel sent after it finds it
    // wherever it is (see ``CollectInFlight``).

    /// A collect call arrived on the connection's loop: its ticket (nil: the session is not
    /// held here on that connection).
    func collectArrived(_ token: String, connection: UInt64) -> CollectTicket? {
        guard case .collectTicket(let ticket) = handle(.collectArrived(token, connection: connection)) else { return nil }
        return ticket
    }

    /// The collect reaches the reader's link here (its outcome to `complete` when registered).
    func collectDispatched(
        _ ticket: CollectTicket, to reader: ReaderID, deadline: ContinuousClock.Instant, complete: @escaping CommandCompletion
    ) -> CollectDispatch {
        guard case .collectDispatch(let dispatch) = handle(.collectDispatched(ticket, reader: reader, deadline: deadline, complete: complete)) else {
            return .noLink
        }
        return dispatch
    }

    /// The collect was written to its link: a cancel that waited for it is written now.
    func collectSent(_ ticket: CollectTicket) { handle(.collectSent(ticket)) }

    /// The collect leaves for another replica: false when a cancel came first.
    func collectLeaving(_ ticket: CollectTicket) -> Bool {
        guard case .flag(let leaving) = handle(.collectLeaving(ticket)) else { return true }
        return leaving
    }

    func collectEnded(_ ticket: CollectTicket) { handle(.collectEnded(ticket)) }
}
