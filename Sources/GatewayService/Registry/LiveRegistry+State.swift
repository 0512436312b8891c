import GatewayCore
import GatewayDomain
import GatewayRegistry
import GatewayRepositories
import GatewayWire

extension LiveRegistry {
    /// What the shell keeps behind its one lock: the machine, and the tables from its ids to
    /// this process's calls, completions, handlers and waiters.
    struct State {
        var machine = ReaderRegistry()
        var linkCalls: [LinkID: ServerCall] = [:]
        var streams: [EventStreamID: SessionEventStream] = [:]
        var completions: [CommandKey: CommandCompletion] = [:]
        var registrationHandlers: [LinkID: RegistrationHandler] = [:]
        var discoveryAnswers: [String: DiscoveryAnswer] = [:]
        /// Drains waiting for no relayed command to be pending (``Event/idleAwaited(_:)``).
        var idleWaiters: [Latch] = []

        /// The live stream of `session` and the number of the last event numbered for it:
        /// an answer that must follow those events waits on the stream for them
        /// (``SessionEventStream/afterEvents(through:_:)``). Nil: no live stream, or no event yet.
        func lastEvent(of session: RegistrySession?) -> (stream: SessionEventStream, through: UInt64)? {
            guard let session, let id = session.stream, let stream = streams[id], session.nextSequence > 1 else { return nil }
            return (stream, session.nextSequence - 1)
        }
    }

    /// Work resolved under the lock, performed after it.
    enum Work {
        case send(SessionEventStream, SessionNotice)
        /// Send a retold loss on a new stream's call, ahead of its ordered events.
        case retell(ServerCall, SessionNotice)
        case complete(CommandCompletion, CommandOutcome)
        /// Send `cancelCollect` down the link's call.
        case cancelCollect(ServerCall)
        /// Send a session's `cancelCollect` command `id` down the link's call (right after the collect it follows).
        case sendCancel(ServerCall, id: UInt64, session: SessionID, timeout: Duration)
        /// Tell the reader on the link's call which lane owns it now, at which generation.
        case tellOwner(ServerCall, lane: String, generation: OwnershipGeneration)
        /// End the call with the error's status (nil: OK); the status message is built after the lock.
        case end(ServerCall, ServiceError?)
        /// End the call with a status its caller built (before the lock).
        case endAs(ServerCall, ReaderGatewayV1.Status)
        /// End a session's event stream (nil: OK), and the answers waiting for its events.
        case endStream(SessionEventStream, ServiceError?)
        /// A newer stream of the session replaced this one: its waiting answers go, and its
        /// call ends (unless the new stream is on the same call).
        case replaceStream(SessionEventStream, by: ServerCall)
        /// The peer ended the stream: its waiting answers go.
        case releaseStream(SessionEventStream)
        case answerDiscovery(DiscoveryAnswer, Result<[ReaderRecord], ServiceError>)
        /// No relayed command is pending any more: a drain goes on.
        case setLatch(Latch)
    }
}

extension LiveRegistry.State {
    typealias Event = LiveRegistry.Event
    typealias Answer = LiveRegistry.Answer
    typealias Work = LiveRegistry.Work

    /// Feeds one event: the answer, and the work to perform after the lock (nothing is sent,
    /// ended or resumed here). `timeout` is the command timeout, for the messages of commands
    /// that timed out.
    mutating func handle(_ event: Event, timeout: Duration) -> (Answer, [Work]) {
        var answer = Answer.done
        var work: [Work] = []
        switch event {
        // MARK: links
        case .linkStarted:
            answer = .linkID(machine.linkStarted())
        case .linkReattached(let reader, let link, let call, let described, let status, let now):
            guard let reattached = machine.linkReattached(reader, link: link, described: described, status: status, now: now) else {
                return (.epoch(nil), [])
            }
            linkCalls[link] = call
            let old = linkCalls.removeValue(forKey: reattached.replaced)
            let error = ServiceError.command(.readerReattached, timeout: timeout)
            work = reattached.failed.compactMap { completions.removeValue(forKey: $0) }.map { .complete($0, .failed(error)) }
            if let old { work.append(.end(old, .linkClosed(.replaced))) }
            answer = .epoch(reattached.epoch)
        case .linkAttached(let reader, let link, let call, let epoch, let described, let status, let now):
            let actions = machine.linkAttached(reader, link: link, epoch: epoch, described: described, status: status, now: now)
            linkCalls[link] = call
            work = resolve(actions, timeout: timeout)
            // Not taken when a link the store recorded later is live here (its call ends above).
            answer = .epoch(machine.linkID(of: reader) == link ? epoch : nil)
        case .linkEnded(let reader, let link, let orderly):
            let call = linkCalls.removeValue(forKey: link)
            guard let ended = machine.linkEnded(reader, link: link) else { return (.endedLink(nil), []) }
            if let call { work.append(.end(call, orderly ? nil : ServiceError(.readerOffline, "the reader link ended"))) }
            work += ended.failed.compactMap { completions.removeValue(forKey: $0) }.map { .complete($0, .failed(.refusal(.readerOffline))) }
            answer = .endedLink(ended)
        case .linkEndAsked(let reader, let status):
            if let call = machine.linkID(of: reader).flatMap({ linkCalls[$0] }) { work.append(.endAs(call, status)) }
        case .ticked(let heartbeatBound, let now):
            let result = machine.tick(now: now, heartbeatBound: heartbeatBound)
            work = result.silentLinks.compactMap { linkCalls[$0] }.map { .end($0, .linkClosed(.silent)) }
            let timedOut = ServiceError.command(.timedOut, timeout: timeout)
            work += result.expiredCommands.compactMap { completions.removeValue(forKey: $0) }.map { .complete($0, .failed(timedOut)) }
        case .commandAnswered(let result, let reader, let link, let now):
            if let key = machine.commandAnswered(reader, link: link, commandID: result.commandID, now: now),
               let completion = completions.removeValue(forKey: key) {
                work.append(.complete(completion, .answered(result)))
            }
        case .heartbeat(let reader, let link, let activity, let batteryLevel, let ipAddress, let now, let nowUnixMs):
            switch machine.heartbeat(reader, link: link, activity: activity, batteryLevel: batteryLevel, ipAddress: ipAddress, now: now, nowUnixMs: nowUnixMs) {
            case .none: break
            case .tellOwner(let send): work = resolve(one: send, timeout: timeout)
            case .announce(let status): answer = .linkStatus(status)
            }
        case .updateProgress(let reader, let progress, let nowUnixMs):
            work = resolve(one: machine.updateProgress(reader, progress: progress, nowUnixMs: nowUnixMs), timeout: timeout)
        case .ownerAnnounced(let reader):
            work = resolve(one: machine.ownerAnnouncement(for: reader), timeout: timeout)
        case .rebootReported(let reader):
            machine.rebootReported(reader)
        case .silenceForgiven(let now):
            machine.silenceForgiven(now: now)
        case .replicaRelayRequested(let reader, let epoch, let generation):
            answer = .fence(machine.replicaRelayRequested(reader, epoch: epoch, generation: generation))
        case .idleAwaited(let latch):
            if machine.pendingCommandCount == 0 { work.append(.setLatch(latch)) } else { idleWaiters.append(latch) }
        case .softwareVersionReported(let reader, let link, let version):
            answer = .flag(machine.softwareVersionReported(reader, link: link, version: version))
        case .softwareUpdateEvent(let reader, let event, let nowUnixMs):
            work = resolve(one: machine.softwareUpdateEvent(reader, event, nowUnixMs: nowUnixMs), timeout: timeout)

        // MARK: registration codes
        case .registrationCodeIssued(let code, let previous, let link, let serial, let expires, let handler):
            machine.registrationCodeIssued(code, replacing: previous, link: link, serial: serial, expires: expires)
            registrationHandlers[link] = handler
        case .registrationWithdrawn(let code, let link):
            machine.registrationWithdrawn(code)
            registrationHandlers[link] = nil
        case .registrationTaken(let code):
            guard let pending = machine.registrationTaken(code), let handler = registrationHandlers[pending.link] else { return (.registration(nil), []) }
            answer = .registration((pending.serial, handler))

        // MARK: sessions
        case .sessionOpened(let session):
            machine.sessionOpened(session)
        case .sessionUsed(let token, let connection, let now, let nowUnixMs, let lease):
            answer = .session(machine.sessionUsed(token, connection: connection, now: now, nowUnixMs: nowUnixMs, lease: lease))
        case .subscribed(let token, let call, let connection):
            guard let subscription = machine.sessionSubscribed(token, connection: connection), let session = machine.session(token: token)?.id else {
                return (.subscribed(nil), [])
            }
            let stream = SessionEventStream(call: call, session: session, firstSequence: subscription.firstSequence)
            streams[subscription.stream] = stream
            if let retold = subscription.retold { work.append(.retell(call, retold)) }
            work += subscription.buffered.map { .send(stream, $0) }
            if let replaced = subscription.replaced.flatMap({ streams.removeValue(forKey: $0) }) { work.append(.replaceStream(replaced, by: call)) }
            answer = .subscribed(subscription.stream)
        case .subscriptionEnded(let token, let id):
            machine.subscriptionEnded(token, stream: id)
            if let ended = streams.removeValue(forKey: id) { work.append(.releaseStream(ended)) }
        case .sessionResuming(let token, let connection):
            machine.sessionResuming(token, on: connection)
        case .sessionEnded(let token):
            guard let (session, actions) = machine.sessionEnded(token) else { return (.session(nil), []) }
            work = resolve(actions, timeout: timeout)
            answer = .session(session)
        case .pendingRefusalTaken(let session):
            guard let refusal = machine.takePendingRefusal(of: session) else { return (.refusal(nil, after: nil), []) }
            answer = .refusal(refusal, after: lastEvent(of: machine.session(id: session)))
        case .sessionAdopted(let session):
            let adoption = machine.sessionAdopted(session)
            work = resolve(adoption.actions, timeout: timeout)
            answer = .adoption(adoption)
        case .sessionMoved(let id, let epoch):
            guard let (session, actions) = machine.sessionMoved(id, epoch: epoch) else { return (.session(nil), []) }
            work = resolve(actions, timeout: timeout)
            answer = .session(session)
        case .sessionsNotRenewed(let copies):
            let result = machine.sessionsNotRenewed(copies)
            work = resolve(result.actions, timeout: timeout)
            answer = .sessions(result.sessions)
        case .connectionClosed(let connection, let now):
            machine.connectionClosed(connection, now: now)
        case .allSessionsDetached(let now):
            answer = .sessionIDs(machine.allSessionsDetached(now: now))
        case .homeLearned(let home, let session, let reader):
            machine.homeLearned(home, session: session, reader: reader)
        case .homeForgotten(let session):
            machine.homeForgotten(session: session)

        // MARK: discovery
        case .discoveryStarted(let token, let now):
            let started = machine.discoveryStarted(token, now: now)
            if let id = started?.supersededWaiter, case .start(let newer, _)? = started?.result,
               let superseded = discoveryAnswers.removeValue(forKey: token) {
                work.append(.answerDiscovery(superseded, .failure(.discoveryCanceled(id, supersededBy: newer))))
            } else if started?.supersededWaiter != nil {
                discoveryAnswers[token] = nil
            }
            answer = .discoveryStart(started?.result)
        case .discoveryWaiting(let token, let id, let waiter):
            guard machine.discoveryWaiting(token, id) else { return (.flag(false), []) }
            discoveryAnswers[token] = waiter
            answer = .flag(true)
        case .discoveryListed(let token, let id, let result):
            if case .failure = result { machine.discoveryFailed(token, id) }
            if machine.takeDiscoveryWaiter(token, id), let waiter = discoveryAnswers.removeValue(forKey: token) {
                work.append(.answerDiscovery(waiter, result))
            }
        case .discoveryAnswered(let token, let id, let readers):
            guard let result = machine.discoveryAnswered(token, id, readers: readers) else { return (.discoveryAnswer(nil), []) }
            answer = .discoveryAnswer((result, result == .answer ? readers.map { machine.linkStatus(of: $0) } : []))
        case .discoveryCancelled(let token, let named):
            if let id = machine.discoveryCancelled(token, named: named), let waiter = discoveryAnswers.removeValue(forKey: token) {
                work.append(.answerDiscovery(waiter, .failure(.discoveryCanceled(id, supersededBy: nil))))
            }

        // MARK: commands
        case .commandDispatched(let session, let reader, let isCollect, let reboot, let deadline, let complete):
            guard let key = machine.commandDispatched(session, to: reader, isCollect: isCollect, reboot: reboot, deadline: deadline),
                  let call = linkCalls[key.link]
            else { return (.dispatched(nil), []) }
            completions[key] = complete
            answer = .dispatched((call, key.command))
        case .commandRequested(let token, let connection, let reboot, let cancelsCollect, let deadline, let now, let nowUnixMs, let lease, let complete):
            answer = .loopRelay(commandRequested(
                token, connection: connection, reboot: reboot, cancelsCollect: cancelsCollect, deadline: deadline, now: now, nowUnixMs: nowUnixMs,
                lease: lease, complete: complete
            ))
        case .collectArrived(let token, let connection):
            answer = .collectTicket(machine.collectArrived(token, connection: connection))
        case .collectDispatched(let ticket, let reader, let deadline, let complete):
            switch machine.collectDispatched(ticket, to: reader, deadline: deadline) {
            case .cancelled: answer = .collectDispatch(.cancelled)
            case .noLink: answer = .collectDispatch(.noLink)
            case .registered(let key):
                guard let call = linkCalls[key.link] else { return (.collectDispatch(.noLink), []) }
                completions[key] = complete
                answer = .collectDispatch(.registered(call, key.command))
            }
        case .collectSent(let ticket):
            if let key = machine.collectSent(ticket), let call = linkCalls[key.link] {
                work.append(.sendCancel(call, id: key.command, session: ticket.session, timeout: timeout))
            }
        case .collectLeaving(let ticket):
            answer = .flag(machine.collectLeaving(ticket))
        case .collectEnded(let ticket):
            machine.collectEnded(ticket)

        // MARK: ownership
        case .readerClaimed(let reader, let session, let generation, let lane, let posDeviceID, let actions, let nowUnixMs):
            guard let actions = machine.readerClaimed(
                reader, by: session, generation: generation, lane: lane, posDeviceID: posDeviceID, actions: actions, nowUnixMs: nowUnixMs
            ) else { return (.flag(false), []) }
            work = resolve(actions, timeout: timeout)
            answer = .flag(true)
        case .readerLetGo(let reader, let session):
            machine.readerLetGo(reader, by: session)
        case .readerReleased(let reader, let generation, let actions, let reason, let nowUnixMs):
            work = resolve(machine.readerReleased(reader, generation: generation, actions: actions, reason: reason, nowUnixMs: nowUnixMs), timeout: timeout)
        case .ownershipDecided(let reader, let generation, let actions, let reason, let nowUnixMs):
            work = resolve(machine.ownershipDecided(reader, generation: generation, actions: actions, reason: reason, nowUnixMs: nowUnixMs), timeout: timeout)
        case .noticeReceived(let reader, let generation, let session, let epoch, let node, let me):
            answer = .flag(machine.noticeReceived(reader, generation: generation, session: session, epoch: epoch, node: node, me: me))
        case .ownershipChanged(let row, let me):
            let changed = machine.ownershipChanged(row, me: me)
            work = resolve(changed.actions, timeout: timeout)
            answer = .ownershipChange(displaced: changed.displaced, linkDropped: changed.linkDropped)
        case .sessionDisplaced(let displaced, let reason, let takenByLane, let takenByPosDeviceID, let nowUnixMs):
            let told = machine.sessionDisplaced(displaced, reason: reason, takenByLane: takenByLane, takenByPosDeviceID: takenByPosDeviceID, nowUnixMs: nowUnixMs)
            let actions = (told.map { [$0] } ?? []) + displaced.interrupted.map { RegistryAction.failCommand($0, .refusal(.connectedToAnotherSession)) }
            work = resolve(actions, timeout: timeout)
        case .fenced:
            let fenced = machine.fenced()
            work = resolve(fenced.actions, timeout: timeout)
            answer = .fenced(fenced)
        case .storeRolledBack(let rollback, let nowUnixMs):
            let rolledBack = machine.storeRolledBack(rollback, nowUnixMs: nowUnixMs)
            work = resolve(rolledBack.actions, timeout: timeout)
            answer = .count(rolledBack.told)
        case .remoteStatusReceived(let status, let reader, let session, let nowUnixMs):
            work = resolve(one: machine.remoteStatusReceived(status, reader: reader, session: session, nowUnixMs: nowUnixMs), timeout: timeout)

        // MARK: questions
        case .linkStatusAsked(let readers):
            answer = .linkStatuses(readers.map { machine.linkStatus(of: $0) })
        case .rebootAsked(let reader, let link):
            answer = .flag(machine.rebootRequested(reader, link: link))
        case .registrationExpiryAsked(let code, let now):
            answer = .flag(machine.registrationExpired(code, now: now))
        case .pendingCommandsAsked:
            answer = .count(machine.pendingCommandCount)
        case .resumeFirstAsked(let token, let connection):
            answer = .resumeFirst(machine.resumeRequired(token, on: connection).map(ServiceError.resumeFirst))
        case .sessionAsked(let token):
            answer = .session(machine.session(token: token))
        case .sessionAskedByID(let id):
            answer = .session(machine.session(id: id))
        case .commandEventSubjectAsked(let token):
            answer = .commandEventSubject(machine.commandEventSubject(token: token))
        case .leaseSweepAsked(let now, let lease):
            let sweep = machine.leaseSweep(now: now, lease: lease)
            answer = .sweep(attached: sweep.attached, expired: sweep.expired)
        case .sessionsAsked(let account, let location):
            answer = .sessions(machine.sessions(of: account, location: location))
        case .holdsAsked(let reader, let session, let generation):
            answer = .flag(machine.holds(reader, session: session, at: generation))
        case .homeAsked(let session):
            answer = .home(machine.home(of: session))
        case .storeRollbackAsked(let row):
            answer = .storeRollback(machine.storeRollback(of: row))
        case .readersOfInterestAsked:
            answer = .readers(machine.readersOfInterest)
        case .remoteStatusRecipientAsked(let reader):
            answer = .session(machine.remoteStatusRecipient(reader))
        case .idleOwnedReadersAsked(let account, let deviceType):
            answer = .idleReaders(machine.idleOwnedReaders(account: account, deviceType: deviceType))
        }
        // A drain waits for the last relayed command to end: whichever event removed it wakes it.
        if !idleWaiters.isEmpty, machine.pendingCommandCount == 0 {
            work += idleWaiters.map { .setLatch($0) }
            idleWaiters = []
        }
        return (answer, work)
    }

    /// The loop relay's decision: the session is checked and, when the reader's link is here,
    /// the command registered on it with `complete`.
    private mutating func commandRequested(
        _ token: String, connection: UInt64, reboot: Bool, cancelsCollect: Bool, deadline: ContinuousClock.Instant, now: ContinuousClock.Instant,
        nowUnixMs: Int64, lease: Duration, complete: @escaping CommandCompletion
    ) -> LiveRegistry.LoopRelay {
        switch machine.commandRequested(
            token, connection: connection, reboot: reboot, cancelsCollect: cancelsCollect, deadline: deadline, now: now, nowUnixMs: nowUnixMs, lease: lease
        ) {
        case .local(let key, let owned):
            guard let call = linkCalls[key.link] else {
                // Not reachable: a link in the machine always has its call filed.
                _ = machine.commandAnswered(owned.reader, link: key.link, commandID: key.command, now: now)
                return .refused(.refusal(.readerOffline))
            }
            completions[key] = complete
            return .local(call, key.command, owned)
        case .afterCollect(let key, let owned):
            completions[key] = complete
            return .afterCollect(owned)
        case .cancelledBeforeLink: return .cancelledBeforeLink
        case .remote(let owned): return .remote(owned)
        case .stale(let owned): return .stale(owned)
        case .unknownSession: return .unknownSession
        case .refused(.sessionUnknown): return .refused(.sessionUnknown)
        case .refused(.notConnected): return .refused(.notConnected)
        case .refused(.resumeFirst(let ending)): return .refused(.resumeFirst(ending))
        case .refused(.refusal(let refusal)):
            // The refusal of a lost reader comes after the event telling of the loss, which
            // the thread that decided the loss may not have handed to the stream yet.
            if let (stream, through) = lastEvent(of: machine.session(token: token)) {
                return .refusedAfterEvents(.refusal(refusal), stream, through: through)
            }
            return .refused(.refusal(refusal))
        }
    }

    // MARK: resolving the machine's actions

    private mutating func resolve(_ actions: [RegistryAction], timeout: Duration) -> [Work] {
        var work: [Work] = []
        work.reserveCapacity(actions.count)
        for action in actions {
            if let item = resolve(action, timeout: timeout) { work.append(item) }
        }
        return work
    }

    private mutating func resolve(one action: RegistryAction?, timeout: Duration) -> [Work] {
        action.flatMap { resolve($0, timeout: timeout) }.map { [$0] } ?? []
    }

    /// What one action comes to: at most one piece of work (nil: its call or completion is
    /// already gone, or an event waits in the buffer).
    private mutating func resolve(_ action: RegistryAction, timeout: Duration) -> Work? {
        switch action {
        case .sendEvent(let event, let id):
            guard let stream = streams[id] else { return nil }
            if stream.call.isFinished {
                // The peer ended the stream a moment ago: the event waits for the next one.
                streams[id] = nil
                machine.eventUndelivered(event, stream: id, session: stream.session)
                return nil
            }
            return .send(stream, event)
        case .failCommand(let key, let failure):
            guard let completion = completions.removeValue(forKey: key) else { return nil }
            return .complete(completion, .failed(.command(failure, timeout: timeout)))
        case .cancelOnReader(let link):
            guard let call = linkCalls[link] else { return nil }
            return .cancelCollect(call)
        case .tellOwner(let link, let lane, let generation):
            guard let call = linkCalls[link] else { return nil }
            return .tellOwner(call, lane: lane, generation: generation)
        case .closeLink(let link, let closure):
            guard let call = linkCalls.removeValue(forKey: link) else { return nil }
            return .end(call, .linkClosed(closure))
        case .endStream(let id, let ending):
            guard let stream = streams.removeValue(forKey: id) else { return nil }
            let error: ServiceError? = switch ending {
            case .sessionEnded: nil
            case .replicaFenced: .replicaFenced
            case .sessionMoved: .sessionMoved
            }
            return .endStream(stream, error)
        }
    }
}
