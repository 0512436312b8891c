import GatewayDomain
import GatewayRegistry
import GatewayRepositories
import GatewayWire

extension Registry {
    /// A second attach of a reader whose link is live here takes its place (commands on the
    /// old link fail, its call ends): the epoch it keeps. Nil when the reader has no link here.
    func linkReattached(
        _ reader: ReaderID, link: LinkID, call: ServerCall, described: ReaderGatewayV1.Reader, status: LinkStatus
    ) -> LinkEpoch? {
        let (epoch, old, failed) = state.withLock { state -> (LinkEpoch?, ServerCall?, [CommandCompletion]) in
            guard let reattached = state.machine.linkReattached(reader, link: link, described: described, status: status, now: clock.now) else {
                return (nil, nil, [])
            }
            state.linkCalls[link] = call
            let old = state.linkCalls.removeValue(forKey: reattached.replaced)
            return (reattached.epoch, old, reattached.failed.compactMap { state.completions.removeValue(forKey: $0) })
        }
        let error = ServiceError.command(.readerReattached, timeout: commandTimeout)
        for completion in failed { completion(.failed(error)) }
        commandsMayHaveEnded()
        old?.end(ServiceError.linkClosed(.replaced).status)
        return epoch
    }

    /// The store recorded the attach: the link is online here (a link that got in between ends).
    func linkAttached(
        _ reader: ReaderID, link: LinkID, call: ServerCall, epoch: LinkEpoch, described: ReaderGatewayV1.Reader, status: LinkStatus
    ) {
        let work = state.withLock { state -> [Work] in
            let actions = state.machine.linkAttached(reader, link: link, epoch: epoch, described: described, status: status, now: clock.now)
            state.linkCalls[link] = call
            return Self.resolve(actions, in: &state, timeout: commandTimeout)
        }
        Self.perform(work)
    }

    /// The link's call ended: unless a newer link took over, the link is forgotten, its call
    /// ends and its commands fail (the reader is offline). Returns what ended, to record.
    ///
    /// The call ends with `UNAVAILABLE` / `READER_OFFLINE`, unless `orderly`: a mobile reader's
    /// device ended the link itself, saying why (`ReaderLinkEnding`), and its call ends OK.
    func linkEnded(_ reader: ReaderID, link: LinkID, orderly: Bool = false) -> ReaderRegistry.EndedLink? {
        let (ended, call, failed) = state.withLock { state -> (ReaderRegistry.EndedLink?, ServerCall?, [CommandCompletion]) in
            let call = state.linkCalls.removeValue(forKey: link)
            guard let ended = state.machine.linkEnded(reader, link: link) else { return (nil, nil, []) }
            return (ended, call, ended.failed.compactMap { state.completions.removeValue(forKey: $0) })
        }
        guard let ended else { return nil }
        call?.end(orderly ? .ok : ServiceError(.readerOffline, "the reader link ended").status)
        for completion in failed { completion(.failed(.refusal(.readerOffline))) }
        commandsMayHaveEnded()
        return ended
    }

    /// Ends the Attach call of the reader's link, if it has one here (the link itself ends
    /// when the call's handler returns).
    func endLink(of reader: ReaderID, _ status: ReaderGatewayV1.Status) {
        let call = state.withLock { state in state.machine.linkID(of: reader).flatMap { state.linkCalls[$0] } }
        call?.end(status)
    }

    /// The periodic sweep at `now`: silent links' calls end, overdue commands fail.
    func tick(heartbeatBound: Duration) {
        let (silent, expired) = state.withLock { state -> ([ServerCall], [CommandCompletion]) in
            let result = state.machine.tick(now: clock.now, heartbeatBound: heartbeatBound)
            return (
                result.silentLinks.compactMap { state.linkCalls[$0] },
                result.expiredCommands.compactMap { state.completions.removeValue(forKey: $0) }
            )
        }
        for call in silent { call.end(ServiceError.linkClosed(.silent).status) }
        let timedOut = ServiceError.command(.timedOut, timeout: commandTimeout)
        for completion in expired { completion(.failed(timedOut)) }
        commandsMayHaveEnded()
    }

    /// The reader's answer to a command, matched on the reader connection's loop (one
    /// lock); the outcome is handed over outside it.
    func commandAnswered(_ result: ReaderGatewayV1.CommandResult, reader: ReaderID, link: LinkID) {
        let completion = state.withLock { state -> CommandCompletion? in
            guard let key = state.machine.commandAnswered(reader, link: link, commandID: result.commandID, now: clock.now) else { return nil }
            return state.completions.removeValue(forKey: key)
        }
        completion?(.answered(result))
        commandsMayHaveEnded()
    }

    /// The reader's link here, as discovery and the admin surface show it (nil: not here).
    func linkStatus(of reader: ReaderID) -> LinkStatus? {
        query { $0.linkStatus(of: reader) }
    }

    // MARK: registration codes

    /// The link shows `code` (the previous one is withdrawn); `handler` hears an admin's registration.
    func registrationCodeIssued(
        _ code: String, replacing previous: String?, link: LinkID, serial: String, expires: ContinuousClock.Instant,
        handler: @escaping RegistrationHandler
    ) {
        state.withLock { state in
            state.machine.registrationCodeIssued(code, replacing: previous, link: link, serial: serial, expires: expires)
            state.registrationHandlers[link] = handler
        }
    }

    /// The link stops showing `code` (registered, or ended).
    func registrationWithdrawn(_ code: String, link: LinkID) {
        state.withLock { state in
            state.machine.registrationWithdrawn(code)
            state.registrationHandlers[link] = nil
        }
    }

    /// An admin registered `code`: the link's serial and the handler to tell, taken.
    func registrationTaken(_ code: String) -> (serial: String, handler: RegistrationHandler)? {
        state.withLock { state in
            guard let pending = state.machine.registrationTaken(code), let handler = state.registrationHandlers[pending.link] else { return nil }
            return (pending.serial, handler)
        }
    }
}

extension Registry {
    /// A new Attach call's link id.
    func linkStarted() -> LinkID {
        state.withLock { $0.machine.linkStarted() }
    }
}

/// Links: heartbeats, progress, reboots, relays from other replicas, and what the admin
/// surface and the drain ask.
extension Registry {
    /// A heartbeat on the link: the status to announce to other replicas, if it changed
    /// (the owner here is told at once).
    func heartbeat(
        _ reader: ReaderID, link: LinkID, activity: ReaderGatewayV1.ReaderActivity, batteryLevel: Float?, ipAddress: String,
        now: ContinuousClock.Instant, nowUnixMs: Int64
    ) -> LinkStatus? {
        act(one: { registry -> (LinkStatus?, RegistryAction?) in
            switch registry.heartbeat(reader, link: link, activity: activity, batteryLevel: batteryLevel, ipAddress: ipAddress, now: now, nowUnixMs: nowUnixMs) {
            case .none: return (nil, nil)
            case .tellOwner(let send): return (nil, send)
            case .announce(let status): return (status, nil)
            }
        })
    }

    /// The reader reported update progress: its owner here hears it.
    func updateProgress(_ reader: ReaderID, progress: Float, nowUnixMs: Int64) {
        apply(one: { $0.updateProgress(reader, progress: progress, nowUnixMs: nowUnixMs) })
    }

    /// A new link is told which lane owns its reader.
    func announceOwner(of reader: ReaderID) {
        apply(one: { $0.ownerAnnouncement(for: reader) })
    }

    /// Whether the reader's link `link` is here and was asked to reboot.
    func rebootRequested(_ reader: ReaderID, link: LinkID) -> Bool {
        query { $0.rebootRequested(reader, link: link) }
    }

    /// The loss after a reboot was recorded.
    func rebootReported(_ reader: ReaderID) {
        feed { $0.rebootReported(reader) }
    }

    /// Every link's silence starts now (after a pause of this process).
    func silenceForgiven(now: ContinuousClock.Instant) {
        feed { $0.silenceForgiven(now: now) }
    }

    /// A command relayed from another replica, fenced by the link's epoch and the generation.
    func replicaRelayRequested(_ reader: ReaderID, epoch: LinkEpoch, generation: OwnershipGeneration) -> ReaderRegistry.ReplicaRelayFence {
        feed { $0.replicaRelayRequested(reader, epoch: epoch, generation: generation) }
    }

    /// Whether the registration code shown by a link here has expired.
    func registrationExpired(_ code: String, now: ContinuousClock.Instant) -> Bool {
        query { $0.registrationExpired(code, now: now) }
    }

    /// Commands relayed to readers here and not answered yet.
    var pendingCommandCount: Int { query { $0.pendingCommandCount } }

    /// The live status of each reader's link here (nil: not here), in order; the caller
    /// builds its messages after the lock.
    func linkStatuses(of readers: [ReaderID]) -> [LinkStatus?] {
        query { registry in readers.map { registry.linkStatus(of: $0) } }
    }
}
