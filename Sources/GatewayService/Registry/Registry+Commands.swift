import GatewayDomain
import GatewayRegistry
import GatewayWire

extension Registry {
    /// Registers a command of `session` on the reader's link (its outcome goes to
    /// `complete`): the link's call and the command's id, or nil when the reader has no
    /// link here (`complete` is not called).
    func dispatch(
        _ session: SessionID, to reader: ReaderID, isCollect: Bool, reboot: Bool, deadline: ContinuousClock.Instant,
        complete: @escaping CommandCompletion
    ) -> (ServerCall, UInt64)? {
        state.withLock { state -> (ServerCall, UInt64)? in
            guard let key = state.machine.commandDispatched(session, to: reader, isCollect: isCollect, reboot: reboot, deadline: deadline),
                  let call = state.linkCalls[key.link]
            else { return nil }
            state.completions[key] = complete
            return (call, key.command)
        }
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
        let now = clock.now
        let nowUnixMs = clock.nowUnixMs
        return state.withLock { state -> LoopRelay in
            switch state.machine.commandRequested(token, connection: connection, reboot: reboot, deadline: deadline, now: now, nowUnixMs: nowUnixMs, lease: lease) {
            case .local(let key, let owned):
                guard let call = state.linkCalls[key.link] else {
                    // Not reachable: a link in the machine always has its call filed.
                    _ = state.machine.commandAnswered(owned.reader, link: key.link, commandID: key.command, now: now)
                    return .refused(.refusal(.readerOffline))
                }
                state.completions[key] = complete
                return .local(call, key.command, owned)
            case .remote(let owned): return .remote(owned)
            case .stale(let owned): return .stale(owned)
            case .unknownSession: return .unknownSession
            case .refused(.sessionUnknown): return .refused(.sessionUnknown)
            case .refused(.notConnected): return .refused(.notConnected)
            case .refused(.resumeFirst(let ending)): return .refused(.resumeFirst(ending))
            case .refused(.refusal(let refusal)):
                // The refusal of a lost reader comes after the event telling of the loss, which
                // the thread that decided the loss may not have handed to the stream yet.
                if let (stream, through) = state.lastEvent(of: state.machine.session(token: token)) {
                    return .refusedAfterEvents(.refusal(refusal), stream, through: through)
                }
                return .refused(.refusal(refusal))
            }
        }
    }
}
