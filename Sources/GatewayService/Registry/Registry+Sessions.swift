import GatewayDomain
import GatewayRegistry
import GatewayWire

extension Registry {
    /// A `SubscribeEvents` call of the session: buffered events go out first, the stream it
    /// replaces ends, and the stream is forgotten when the peer ends it. False: no such session.
    func subscribe(_ token: String, call: ServerCall, connection: UInt64) -> Bool {
        let subscribed = state.withLock { state -> (SessionEventStream, ReaderRegistry.Subscription, SessionEventStream?)? in
            guard let subscription = state.machine.sessionSubscribed(token, connection: connection),
                  let session = state.machine.session(token: token)?.id
            else { return nil }
            let stream = SessionEventStream(call: call, session: session, firstSequence: subscription.firstSequence)
            state.streams[subscription.stream] = stream
            let replaced = subscription.replaced.flatMap { state.streams.removeValue(forKey: $0) }
            return (stream, subscription, replaced)
        }
        guard let (stream, subscription, replaced) = subscribed else { return false }
        if let retold = subscription.retold { stream.call.send(retold.message) }
        for event in subscription.buffered { stream.send(event.message) }
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

/// Sessions: opened, used, adopted, swept, moved and asked about.
extension Registry {
    /// A session opened here (OpenSession).
    func sessionOpened(_ session: RegistrySession) {
        feed { $0.sessionOpened(session) }
    }

    /// A call of the session arrived on `connection`: the session, marked as used, or nil when
    /// memory may not answer (not held, not bound to that connection, or its lease ran out).
    func sessionUsed(_ token: String, connection: UInt64, now: ContinuousClock.Instant, nowUnixMs: Int64, lease: Duration) -> RegistrySession? {
        feed { $0.sessionUsed(token, connection: connection, now: now, nowUnixMs: nowUnixMs, lease: lease) }
    }

    /// The session held here with this token, if any.
    func session(token: String) -> RegistrySession? {
        query { $0.session(token: token) }
    }

    /// The session held here with this id, if any.
    func session(id: SessionID) -> RegistrySession? {
        query { $0.session(id: id) }
    }

    /// A session adopted from its row (see ``ReaderRegistry/sessionAdopted(_:)``).
    func sessionAdopted(_ session: RegistrySession) -> ReaderRegistry.Adoption {
        act { registry in
            let adoption = registry.sessionAdopted(session)
            return (adoption, adoption.actions)
        }
    }

    /// Another replica adopted the session at `epoch`: an older copy here is dropped. The dropped copy, if any.
    func sessionMoved(_ id: SessionID, epoch: Int64) -> RegistrySession? {
        act { registry -> (RegistrySession?, [RegistryAction]) in
            guard let (session, actions) = registry.sessionMoved(id, epoch: epoch) else { return (nil, []) }
            return (session, actions)
        }
    }

    /// Copies whose rows the renewal found moved on are dropped. The dropped copies.
    func sessionsNotRenewed(_ copies: [SessionEpoch]) -> [RegistrySession] {
        act { registry in
            let result = registry.sessionsNotRenewed(copies)
            return (result.sessions, result.actions)
        }
    }

    /// The sessions to renew (attached) and to end (detached past `lease`) at `now`.
    func leaseSweep(now: ContinuousClock.Instant, lease: Duration) -> (attached: [SessionEpoch], expired: [String]) {
        query { $0.leaseSweep(now: now, lease: lease) }
    }

    /// A connection closed: sessions whose last connection it was are detached.
    func connectionClosed(_ connection: UInt64, now: ContinuousClock.Instant) {
        feed { $0.connectionClosed(connection, now: now) }
    }

    /// Every session is detached (the replica drains). Their ids.
    func allSessionsDetached(now: ContinuousClock.Instant) -> [SessionID] {
        feed { $0.allSessionsDetached(now: now) }
    }

    /// The sessions of `account` (in `location`'s scope when given), oldest first.
    func sessions(of account: String, location: String?) -> [RegistrySession] {
        query { $0.sessions(of: account, location: location) }
    }

    /// Whether the session still owns `reader` at `generation` in memory.
    func holds(_ reader: ReaderID, session: SessionID, at generation: OwnershipGeneration) -> Bool {
        query { $0.holds(reader, session: session, at: generation) }
    }

    /// The home the session last relayed to (nil: look it up).
    func home(of session: SessionID) -> ReaderHomeCache? {
        query { $0.home(of: session) }
    }

    /// A relay over the replica link reached `home`: cached while the session still holds `reader`.
    func homeLearned(_ home: ReaderHomeCache, session: SessionID, reader: ReaderID) {
        feed { $0.homeLearned(home, session: session, reader: reader) }
    }

    /// The cached home turned out wrong: look it up next time.
    func homeForgotten(session: SessionID) {
        feed { $0.homeForgotten(session: session) }
    }
}
