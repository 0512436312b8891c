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
    }

    /// The loop relay's one lock: the session is checked and, when the reader's link is
    /// here, the command registered on it with `complete`.
    func commandRequested(
        _ token: String, connection: UInt64, reboot: Bool, deadline: ContinuousClock.Instant, lease: Duration,
        complete: @escaping CommandCompletion
    ) -> LoopRelay {
        let event = Event.commandRequested(
            token, connection: connection, reboot: reboot, deadline: deadline, now: clock.now, nowUnixMs: clock.nowUnixMs, lease: lease, complete: complete
        )
        guard case .loopRelay(let relay) = handle(event) else { return .refused(.refusal(.readerOffline)) }
        return relay
    }
}
