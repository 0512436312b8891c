import GatewayDomain
import GatewayRegistry
import GatewayRepositories
import GatewayWire

/// The ownership events the registry hears: the store's decisions applied to this
/// replica's memory (each one lock; the events and failures they cause are performed after it).
extension Registry {
    /// The store granted `reader` to the session: memory follows, the displaced hear of it.
    /// False when the session is not held here any more.
    func readerClaimed(
        _ reader: ReaderID, by session: SessionID, generation: OwnershipGeneration, lane: LaneLabel, posDeviceID: String,
        actions: [OwnershipAction], nowUnixMs: Int64
    ) -> Bool {
        act { registry -> (Bool, [RegistryAction]) in
            guard let actions = registry.readerClaimed(
                reader, by: session, generation: generation, lane: lane, posDeviceID: posDeviceID, actions: actions, nowUnixMs: nowUnixMs
            ) else { return (false, []) }
            return (true, actions)
        }
    }

    /// The session let go of `reader` (before the store's answer is applied).
    func readerLetGo(_ reader: ReaderID, by session: SessionID) {
        feed { $0.readerLetGo(reader, by: session) }
    }

    /// The store released `reader` at `generation` (disconnect, expiry, an admin's release).
    func readerReleased(
        _ reader: ReaderID, generation: OwnershipGeneration, actions: [OwnershipAction], reason: ReaderGatewayV1.DisconnectReason, nowUnixMs: Int64
    ) {
        apply { $0.readerReleased(reader, generation: generation, actions: actions, reason: reason, nowUnixMs: nowUnixMs) }
    }

    /// The store decided a change of `reader`'s owner that memory applies (a link lost, a reaped node's readers).
    func ownershipDecided(
        _ reader: ReaderID, generation: OwnershipGeneration, actions: [OwnershipAction], reason: ReaderGatewayV1.DisconnectReason, nowUnixMs: Int64
    ) {
        apply { $0.ownershipDecided(reader, generation: generation, actions: actions, reason: reason, nowUnixMs: nowUnixMs) }
    }

    /// A NOTIFY about `reader`: whether it concerns this replica (then its row is re-read).
    func noticeReceived(_ reader: ReaderID, generation: OwnershipGeneration, session: SessionID?, epoch: LinkEpoch, node: String?, me: String) -> Bool {
        feed { $0.noticeReceived(reader, generation: generation, session: session, epoch: epoch, node: node, me: me) }
    }

    /// Memory brought in line with one reader's row: the sessions here that lost the reader
    /// (to be told, once the history says why), and whether a link here was dropped.
    func ownershipChanged(_ row: OwnershipRow, me: String) -> (displaced: [ReaderRegistry.Displaced], linkDropped: Bool) {
        act { registry in
            let changed = registry.ownershipChanged(row, me: me)
            return ((changed.displaced, changed.linkDropped), changed.actions)
        }
    }

    /// Tells a displaced session why (as the history says), then fails the commands the change interrupted.
    func sessionDisplaced(
        _ displaced: ReaderRegistry.Displaced, reason: ReaderGatewayV1.DisconnectReason?, takenByLane: String?, takenByPosDeviceID: String?, nowUnixMs: Int64
    ) {
        apply { registry in
            let told = registry.sessionDisplaced(displaced, reason: reason, takenByLane: takenByLane, takenByPosDeviceID: takenByPosDeviceID, nowUnixMs: nowUnixMs)
            return (told.map { [$0] } ?? []) + displaced.interrupted.map { .failCommand($0, .refusal(.connectedToAnotherSession)) }
        }
    }

    /// Every reader this replica cares about (links here, readers its sessions own).
    var readersOfInterest: [ReaderID] { query { $0.readersOfInterest } }

    /// The others declared this replica dead: every link and session is dropped from memory.
    func fenced() -> ReaderRegistry.Fenced {
        act { registry in
            let fenced = registry.fenced()
            return (fenced, fenced.actions)
        }
    }

    /// The owner here of a reader whose link is elsewhere, to hear its status notices.
    func remoteStatusRecipient(_ reader: ReaderID) -> RegistrySession? {
        query { $0.remoteStatusRecipient(reader) }
    }

    /// A status notice of a reader linked elsewhere, for its owner here.
    func remoteStatusReceived(_ status: ReaderGatewayV1.ReaderStatusChanged, reader: ReaderID, session: SessionID, nowUnixMs: Int64) {
        apply(one: { $0.remoteStatusReceived(status, reader: reader, session: session, nowUnixMs: nowUnixMs) })
    }
}
