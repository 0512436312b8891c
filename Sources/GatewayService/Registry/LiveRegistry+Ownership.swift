import GatewayDomain
import GatewayRegistry
import GatewayRepositories
import GatewayWire

/// The ownership events the registry hears: the store's decisions applied to this
/// replica's memory (each one lock; the events and failures they cause are performed after it).
extension LiveRegistry {
    /// The store granted `reader` to the session: memory follows, the displaced hear of it.
    /// False when the session is not held here any more.
    func readerClaimed(
        _ reader: ReaderID, by session: SessionID, generation: OwnershipGeneration, lane: LaneLabel, posDeviceID: String,
        actions: [OwnershipAction], nowUnixMs: Int64
    ) -> Bool {
        let event = Event.readerClaimed(
            reader, session: session, generation: generation, lane: lane, posDeviceID: posDeviceID, actions: actions, nowUnixMs: nowUnixMs
        )
        guard case .flag(let held) = handle(event) else { return false }
        return held
    }

    /// The session let go of `reader` (before the store's answer is applied).
    func readerLetGo(_ reader: ReaderID, by session: SessionID) {
        handle(.readerLetGo(reader, session: session))
    }

    /// The store released `reader` at `generation` (disconnect, expiry, an admin's release).
    func readerReleased(
        _ reader: ReaderID, generation: OwnershipGeneration, actions: [OwnershipAction], reason: ReaderGatewayV1.DisconnectReason, nowUnixMs: Int64
    ) {
        handle(.readerReleased(reader, generation: generation, actions: actions, reason: reason, nowUnixMs: nowUnixMs))
    }

    /// The store decided a change of `reader`'s owner that memory applies (a link lost, a reaped node's readers).
    func ownershipDecided(
        _ reader: ReaderID, generation: OwnershipGeneration, actions: [OwnershipAction], reason: ReaderGatewayV1.DisconnectReason, nowUnixMs: Int64
    ) {
        handle(.ownershipDecided(reader, generation: generation, actions: actions, reason: reason, nowUnixMs: nowUnixMs))
    }

    /// A NOTIFY about `reader`: whether it concerns this replica (then its row is re-read).
    func noticeReceived(_ reader: ReaderID, generation: OwnershipGeneration, session: SessionID?, epoch: LinkEpoch, node: String?, me: String) -> Bool {
        guard case .flag(let concerns) = handle(.noticeReceived(reader, generation: generation, session: session, epoch: epoch, node: node, me: me)) else {
            return false
        }
        return concerns
    }

    /// Memory brought in line with one reader's row: the sessions here that lost the reader
    /// (to be told, once the history says why), and whether a link here was dropped.
    func ownershipChanged(_ row: OwnershipRow, me: String) -> (displaced: [ReaderRegistry.Displaced], linkDropped: Bool) {
        guard case .ownershipChange(let displaced, let linkDropped) = handle(.ownershipChanged(row, me: me)) else { return ([], false) }
        return (displaced, linkDropped)
    }

    /// Tells a displaced session why (as the history says), then fails the commands the change interrupted.
    func sessionDisplaced(
        _ displaced: ReaderRegistry.Displaced, reason: ReaderGatewayV1.DisconnectReason?, takenByLane: String?, takenByPosDeviceID: String?, nowUnixMs: Int64
    ) {
        handle(.sessionDisplaced(displaced, reason: reason, takenByLane: takenByLane, takenByPosDeviceID: takenByPosDeviceID, nowUnixMs: nowUnixMs))
    }

    /// Every reader this replica cares about (links here, readers its sessions own).
    var readersOfInterest: [ReaderID] {
        guard case .readers(let readers) = handle(.readersOfInterestAsked) else { return [] }
        return readers
    }

    /// The others declared this replica dead: every link and session is dropped from memory.
    func fenced() -> ReaderRegistry.Fenced {
        guard case .fenced(let fenced) = handle(.fenced) else { preconditionFailure("the registry answered fencing without what it dropped") }
        return fenced
    }

    /// The owner here of a reader whose link is elsewhere, to hear its status notices.
    func remoteStatusRecipient(_ reader: ReaderID) -> RegistrySession? {
        guard case .session(let session) = handle(.remoteStatusRecipientAsked(reader)) else { return nil }
        return session
    }

    /// A status notice of a reader linked elsewhere, for its owner here.
    func remoteStatusReceived(_ status: ReaderGatewayV1.ReaderStatusChanged, reader: ReaderID, session: SessionID, nowUnixMs: Int64) {
        handle(.remoteStatusReceived(status, reader: reader, session: session, nowUnixMs: nowUnixMs))
    }
}
