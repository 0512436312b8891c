import GatewayDomain
import GatewayRegistry
import GatewayWire

extension Registry {
    /// A `SubscribeEvents` call of the session: buffered events go out first, the stream it
    /// replaces ends, and the stream is forgotten when the peer ends it. False: no such session.
    func subscribe(_ token: String, call: ServerCall, connection: UInt64) -> Bool {
        let subscribed = state.withLock { state -> (SessionEventStream, ReaderRegistry.Subscription, SessionEventStream?)? in
            guard let subscription = state.machine.sessionSubscribed(token, connection: connection),
                  let session = state.machine.sessions[token]?.id
            else { return nil }
            let stream = SessionEventStream(call: call, session: session, firstSequence: subscription.firstSequence)
            state.streams[subscription.stream] = stream
            let replaced = subscription.replaced.flatMap { state.streams.removeValue(forKey: $0) }
            return (stream, subscription, replaced)
        }
        guard let (stream, subscription, replaced) = subscribed else { return false }
        if let retold = subscription.retold { stream.call.send(retold) }
        for event in subscription.buffered { stream.send(event) }
        if let replaced {
            replaced.releaseWaiting()
            if replaced.call !== call { replaced.call.end() }
        }
        call.onCancel { [self] in
            let ended = state.withLock { state -> SessionEventStream? in
                state.machine.subscriptionEnded(token, stream: subscription.stream)
                return state.streams.removeValue(forKey: subscription.stream)
            }
            ended?.releaseWaiting()
        }
        return true
    }

    /// The error a call of the session on `connection` fails with because this replica ended
    /// the session's stream there asking for a resume; nil when nothing stands in the way.
    func resumeFirst(_ token: String, connection: UInt64) -> ServiceError? {
        state.withLock { $0.machine.resumeRequired(token, on: connection) }.map(ServiceError.resumeFirst)
    }

    /// `OpenSession(resume)` came on `connection`: the session's calls there are answered again.
    func sessionResuming(_ token: String, connection: UInt64) {
        state.withLock { $0.machine.sessionResuming(token, on: connection) }
    }

    /// Forgets a session: its event stream ends. Nil when it was not held.
    func sessionEnded(_ token: String) -> RegistrySession? {
        act { registry in
            guard let (session, actions) = registry.sessionEnded(token) else { return (nil, []) }
            return (session, actions)
        }
    }

    /// The refusal a displaced session's next command fails with, consumed; returned once
    /// every event numbered before it was handed to the session's live stream, so that the
    /// event telling of the loss (which the thread that decided it may still be handing
    /// over) reaches the connection before the refusal does.
    func takePendingRefusal(of session: SessionID) async -> OwnershipRefusal? {
        let taken = state.withLock { state -> (OwnershipRefusal, (stream: SessionEventStream, through: UInt64)?)? in
            guard let refusal = state.machine.takePendingRefusal(of: session) else { return nil }
            return (refusal, state.lastEvent(of: state.machine.session(id: session)))
        }
        guard let (refusal, events) = taken else { return nil }
        if let events {
            await withCheckedContinuation { (sent: CheckedContinuation<Void, Never>) in events.stream.afterEvents(through: events.through) { sent.resume() } }
        }
        return refusal
    }
}
