import GatewayDomain
import GatewayRegistry
import GatewayWire

extension LiveRegistry {
    /// A `SubscribeEvents` call of the session: buffered events go out first, the stream it
    /// replaces ends, and the stream is forgotten when the peer ends it. False: no such session.
    func subscribe(_ token: String, call: ServerCall, connection: UInt64) -> Bool {
        guard case .subscribed(let stream?) = handle(.subscribed(token, call: call, connection: connection)) else { return false }
        call.onCancel { [self] in handle(.subscriptionEnded(token, stream: stream)) }
        return true
    }

    /// The error a call of the session on `connection` fails with because this replica ended
    /// the session's stream there asking for a resume; nil when nothing stands in the way.
    func resumeFirst(_ token: String, connection: UInt64) -> ServiceError? {
        guard case .resumeFirst(let error) = handle(.resumeFirstAsked(token, connection: connection)) else { return nil }
        return error
    }

    /// `OpenSession(resume)` came on `connection`: the session's calls there are answered again.
    func sessionResuming(_ token: String, connection: UInt64) {
        handle(.sessionResuming(token, connection: connection))
    }

    /// Forgets a session: its event stream ends. Nil when it was not held.
    func sessionEnded(_ token: String) -> RegistrySession? {
        guard case .session(let session) = handle(.sessionEnded(token)) else { return nil }
        return session
    }

    /// The refusal a displaced session's next command fails with, consumed; returned once
    /// every event numbered before it was handed to the session's live stream, so that the
    /// event telling of the loss (which the thread that decided it may still be handing
    /// over) reaches the connection before the refusal does.
    func takePendingRefusal(of session: SessionID) async -> OwnershipRefusal? {
        guard case .refusal(let refusal?, let events) = handle(.pendingRefusalTaken(session)) else { return nil }
        if let events {
            await withCheckedContinuation { (sent: CheckedContinuation<Void, Never>) in events.stream.afterEvents(through: events.through) { sent.resume() } }
        }
        return refusal
    }
}

/// Sessions: opened, used, adopted, swept, moved and asked about.
extension LiveRegistry {
    /// A session opened here (OpenSession).
    func sessionOpened(_ session: RegistrySession) {
        handle(.sessionOpened(session))
    }

    /// A call of the session arrived on `connection`: the session, marked as used, or nil when
    /// memory may not answer (not held, not bound to that connection, or its lease ran out).
    func sessionUsed(_ token: String, connection: UInt64, now: ContinuousClock.Instant, nowUnixMs: Int64, lease: Duration) -> RegistrySession? {
        guard case .session(let session) = handle(.sessionUsed(token, connection: connection, now: now, nowUnixMs: nowUnixMs, lease: lease)) else { return nil }
        return session
    }

    /// The session held here with this token, if any.
    func session(token: String) -> RegistrySession? {
        guard case .session(let session) = handle(.sessionAsked(token: token)) else { return nil }
        return session
    }

    /// The session held here with this id, if any.
    func session(id: SessionID) -> RegistrySession? {
        guard case .session(let session) = handle(.sessionAskedByID(id)) else { return nil }
        return session
    }

    /// A session adopted from its row (see ``ReaderRegistry/sessionAdopted(_:)``).
    func sessionAdopted(_ session: RegistrySession) -> ReaderRegistry.Adoption {
        guard case .adoption(let adoption) = handle(.sessionAdopted(session)) else {
            preconditionFailure("the registry answered an adoption without one")
        }
        return adoption
    }

    /// Another replica adopted the session at `epoch`: an older copy here is dropped. The dropped copy, if any.
    func sessionMoved(_ id: SessionID, epoch: Int64) -> RegistrySession? {
        guard case .session(let session) = handle(.sessionMoved(id, epoch: epoch)) else { return nil }
        return session
    }

    /// Copies whose rows the renewal found moved on are dropped. The dropped copies.
    func sessionsNotRenewed(_ copies: [SessionEpoch]) -> [RegistrySession] {
        guard case .sessions(let sessions) = handle(.sessionsNotRenewed(copies)) else { return [] }
        return sessions
    }

    /// The sessions to renew (attached) and to end (detached past `lease`) at `now`.
    func leaseSweep(now: ContinuousClock.Instant, lease: Duration) -> (attached: [SessionEpoch], expired: [String]) {
        guard case .sweep(let attached, let expired) = handle(.leaseSweepAsked(now: now, lease: lease)) else { return ([], []) }
        return (attached, expired)
    }

    /// A connection closed: sessions whose last connection it was are detached.
    func connectionClosed(_ connection: UInt64, now: ContinuousClock.Instant) {
        handle(.connectionClosed(connection, now: now))
    }

    /// Every session is detached (the replica drains). Their ids.
    func allSessionsDetached(now: ContinuousClock.Instant) -> [SessionID] {
        guard case .sessionIDs(let ids) = handle(.allSessionsDetached(now: now)) else { return [] }
        return ids
    }

    /// The sessions of `account` (in `location`'s scope when given), oldest first.
    func sessions(of account: String, location: String?) -> [RegistrySession] {
        guard case .sessions(let sessions) = handle(.sessionsAsked(account: account, location: location)) else { return [] }
        return sessions
    }

    /// Whether the session still owns `reader` at `generation` in memory.
    func holds(_ reader: ReaderID, session: SessionID, at generation: OwnershipGeneration) -> Bool {
        guard case .flag(let holds) = handle(.holdsAsked(reader, session: session, generation: generation)) else { return false }
        return holds
    }

    /// The home the session last relayed to (nil: look it up).
    func home(of session: SessionID) -> ReaderHomeCache? {
        guard case .home(let home) = handle(.homeAsked(session)) else { return nil }
        return home
    }

    /// A relay over the replica link reached `home`: cached while the session still holds `reader`.
    func homeLearned(_ home: ReaderHomeCache, session: SessionID, reader: ReaderID) {
        handle(.homeLearned(home, session: session, reader: reader))
    }

    /// The cached home turned out wrong: look it up next time.
    func homeForgotten(session: SessionID) {
        handle(.homeForgotten(session))
    }
}
