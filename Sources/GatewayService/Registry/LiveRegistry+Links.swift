import GatewayDomain
import GatewayRegistry
import GatewayRepositories
import GatewayWire

extension LiveRegistry {
    /// A second attach of a reader whose link is live here takes its place (commands on the
    /// old link fail, its call ends): the epoch it keeps. Nil when the reader has no link here.
    func linkReattached(
        _ reader: ReaderID, link: LinkID, call: ServerCall, described: ReaderGatewayV1.Reader, status: LinkStatus
    ) -> LinkEpoch? {
        guard case .epoch(let epoch) = handle(.linkReattached(reader, link: link, call: call, described: described, status: status, now: clock.now)) else { return nil }
        return epoch
    }

    /// The store recorded the attach: the link is online here (a link that got in between
    /// ends). False when a link of the reader that the store recorded later is live here: this
    /// one's call is ended as replaced and it is not online.
    func linkAttached(
        _ reader: ReaderID, link: LinkID, call: ServerCall, epoch: LinkEpoch, described: ReaderGatewayV1.Reader, status: LinkStatus
    ) -> Bool {
        guard case .epoch(let taken) = handle(.linkAttached(reader, link: link, call: call, epoch: epoch, described: described, status: status, now: clock.now)) else {
            return false
        }
        return taken != nil
    }

    /// The link's call ended: unless a newer link took over, the link is forgotten, its call
    /// ends and its commands fail (the reader is offline). Returns what ended, to record.
    ///
    /// The call ends with `UNAVAILABLE` / `READER_OFFLINE`, unless `orderly`: a mobile reader's
    /// device ended the link itself, saying why (`ReaderLinkEnding`), and its call ends OK.
    func linkEnded(_ reader: ReaderID, link: LinkID, orderly: Bool = false) -> ReaderRegistry.EndedLink? {
        guard case .endedLink(let ended) = handle(.linkEnded(reader, link: link, orderly: orderly)) else { return nil }
        return ended
    }

    /// Ends the Attach call of the reader's link, if it has one here (the link itself ends
    /// when the call's handler returns).
    func endLink(of reader: ReaderID, _ status: ReaderGatewayV1.Status) {
        handle(.linkEndAsked(reader, status: status))
    }

    /// The periodic sweep at `now`: silent links' calls end, overdue commands fail.
    func tick(heartbeatBound: Duration) {
        handle(.ticked(heartbeatBound: heartbeatBound, now: clock.now))
    }

    /// The reader's answer to a command, matched on the reader connection's loop (one
    /// lock); the outcome is handed over outside it.
    func commandAnswered(_ result: ReaderGatewayV1.CommandResult, reader: ReaderID, link: LinkID) {
        handle(.commandAnswered(result, reader: reader, link: link, now: clock.now))
    }

    /// The reader's link here, as discovery and the admin surface show it (nil: not here).
    func linkStatus(of reader: ReaderID) -> LinkStatus? {
        linkStatuses(of: [reader]).first ?? nil
    }

    // MARK: registration codes

    /// The link shows `code` (the previous one is withdrawn); `handler` hears an admin's registration.
    func registrationCodeIssued(
        _ code: String, replacing previous: String?, link: LinkID, serial: String, expires: ContinuousClock.Instant,
        handler: @escaping RegistrationHandler
    ) {
        handle(.registrationCodeIssued(code, replacing: previous, link: link, serial: serial, expires: expires, handler: handler))
    }

    /// The link stops showing `code` (registered, or ended).
    func registrationWithdrawn(_ code: String, link: LinkID) {
        handle(.registrationWithdrawn(code, link: link))
    }

    /// An admin registered `code`: the link's serial and the handler to tell, taken.
    func registrationTaken(_ code: String) -> (serial: String, handler: RegistrationHandler)? {
        guard case .registration(let taken) = handle(.registrationTaken(code)) else { return nil }
        return taken
    }
}

extension LiveRegistry {
    /// A new Attach call's link id.
    func linkStarted() -> LinkID {
        guard case .linkID(let id) = handle(.linkStarted) else { preconditionFailure("the registry answered linkStarted without a link id") }
        return id
    }
}

/// Links: heartbeats, progress, reboots, relays from other replicas, and what the admin
/// surface and the drain ask.
extension LiveRegistry {
    /// A heartbeat on the link: the status to announce to other replicas, if it changed
    /// (the owner here is told at once).
    func heartbeat(
        _ reader: ReaderID, link: LinkID, activity: ReaderGatewayV1.ReaderActivity, batteryLevel: Float?, ipAddress: String,
        now: ContinuousClock.Instant, nowUnixMs: Int64
    ) -> LinkStatus? {
        let event = Event.heartbeat(reader, link: link, activity: activity, batteryLevel: batteryLevel, ipAddress: ipAddress, now: now, nowUnixMs: nowUnixMs)
        guard case .linkStatus(let status) = handle(event) else { return nil }
        return status
    }

    /// The reader reported update progress: its owner here hears it.
    func updateProgress(_ reader: ReaderID, progress: Float, nowUnixMs: Int64) {
        handle(.updateProgress(reader, progress: progress, nowUnixMs: nowUnixMs))
    }

    /// A new link is told which lane owns its reader.
    func announceOwner(of reader: ReaderID) {
        handle(.ownerAnnounced(reader))
    }

    /// Whether the reader's link `link` is here and was asked to reboot.
    func rebootRequested(_ reader: ReaderID, link: LinkID) -> Bool {
        guard case .flag(let requested) = handle(.rebootAsked(reader, link: link)) else { return false }
        return requested
    }

    /// The loss after a reboot was recorded.
    func rebootReported(_ reader: ReaderID) {
        handle(.rebootReported(reader))
    }

    /// Every link's silence starts now (after a pause of this process).
    func silenceForgiven(now: ContinuousClock.Instant) {
        handle(.silenceForgiven(now: now))
    }

    /// A command relayed from another replica, fenced by the link's epoch and the generation.
    func replicaRelayRequested(_ reader: ReaderID, epoch: LinkEpoch, generation: OwnershipGeneration) -> ReaderRegistry.ReplicaRelayFence {
        guard case .fence(let fence) = handle(.replicaRelayRequested(reader, epoch: epoch, generation: generation)) else {
            preconditionFailure("the registry answered a replica relay without a fence")
        }
        return fence
    }

    /// Whether the registration code shown by a link here has expired.
    func registrationExpired(_ code: String, now: ContinuousClock.Instant) -> Bool {
        guard case .flag(let expired) = handle(.registrationExpiryAsked(code, now: now)) else { return false }
        return expired
    }

    /// Commands relayed to readers here and not answered yet.
    var pendingCommandCount: Int {
        guard case .count(let count) = handle(.pendingCommandsAsked) else { return 0 }
        return count
    }

    /// The live status of each reader's link here (nil: not here), in order; the caller
    /// builds its messages after the lock.
    func linkStatuses(of readers: [ReaderID]) -> [LinkStatus?] {
        guard case .linkStatuses(let statuses) = handle(.linkStatusAsked(readers)) else { return readers.map { _ in nil } }
        return statuses
    }
}
