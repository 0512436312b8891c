import GatewayDomain
import GatewayWire

/// What one replica knows about live readers and sessions, as a pure state machine.
///
/// A value type with no locks, no I/O and no clock of its own: every event is a
/// `mutating` method that takes the time it needs and returns what the shell must
/// do — a small result, or ``RegistryAction``s. It refers to links, event streams,
/// connections, sessions and commands by id; the shell keeps the tables from those
/// ids to its calls and completions, takes its lock to feed an event, and performs
/// the actions after releasing it (no send happens under the lock).
///
/// Who owns a reader is not decided here: the store's one-statement claim decides it
/// across replicas by the rules of ``ReaderOwnershipStateMachine`` (a parity test keeps
/// the two in agreement), and the registry applies each decision's
/// ``OwnershipAction``s to this replica's memory: the displaced session hears why and
/// who took the reader before its next command fails, an interrupted collect is
/// cancelled on the reader, a superseded link is closed.
///
/// Indexes keep every event off the list of all sessions: sessions by token and by id,
/// by the reader they own, and by the connections that carry their calls. Only the
/// periodic lease sweep and the admin listing walk every session.
///
/// ```
///            linkAttached                linkEnded / closeLink
///  (none) ──────────────────▶ online ─────────────────────────▶ (none)
///                 ▲  │ linkReattached: same reader, new link id, commands failed
///                 └──┘
///  session: opened/adopted ─▶ attached ◀──── sessionUsed ────┐
///                               │ connectionClosed (last)    │
///                               ▼                            │
///                            detached ───────────────────────┘
///                               │ lease runs out (leaseSweep) / sessionEnded
///                               ▼
///                             (none)
/// ```
public struct ReaderRegistry: Sendable {
    /// The most events a session without a live stream keeps (the oldest are dropped).
    public static let bufferedEventLimit = 256

    var links: [ReaderID: RegistryLink] = [:]
    /// Readers whose link ended after a reboot command, while the loss is being recorded:
    /// the history row says `reader_lost`, so a notice that races the link's own report
    /// reads the reason here.
    var rebootingReaders: Set<ReaderID> = []
    var registrations: [String: PendingRegistration] = [:]
    /// Sessions by token (the relay path finds them in one lookup).
    var sessions: [String: RegistrySession] = [:]
    var tokens: [SessionID: String] = [:]
    /// Sessions (tokens) holding each reader in memory: normally one, more while a change
    /// made on another replica has not been heard here yet.
    var holders: [ReaderID: Set<String>] = [:]
    /// Sessions (tokens) carrying calls on each open connection.
    var sessionsByConnection: [UInt64: Set<String>] = [:]
    /// The discovery waiting for its readers, by session token (at most one per session).
    /// Kept apart from the sessions: whatever happens to a session, the store's answer
    /// still finds and resumes its waiter.
    var discoveryWaiters: [String: DiscoveryStateMachine.DiscoveryID] = [:]
    /// Connections whose session stream this replica ended with "resume the session"
    /// (fenced off, or the session moved), by connection and session token: the session's
    /// calls on that connection fail the same way until it resumes there, so that nothing
    /// is answered on a connection that can no longer hear the session's events.
    var resumeRequired: [UInt64: [String: StreamEnding]] = [:]
    var nextLinkID: UInt64 = 1
    var nextStreamID: UInt64 = 1
    var nextCollectNumber: UInt64 = 1

    public init() {}

    // MARK: lookups

    public func session(id: SessionID) -> RegistrySession? {
        tokens[id].flatMap { sessions[$0] }
    }

    public func session(token: String) -> RegistrySession? { sessions[token] }

    /// Whether the reader's link `link` is the one here and was asked to reboot.
    public func rebootRequested(_ reader: ReaderID, link: LinkID) -> Bool {
        links[reader].map { $0.id == link && $0.rebootRequested } ?? false
    }

    public func token(of id: SessionID) -> String? { tokens[id] }

    /// The session that owns `reader` per this replica's memory: of the sessions holding
    /// it, the one at the newest generation.
    public func owner(of reader: ReaderID) -> RegistrySession? {
        guard let holding = holders[reader] else { return nil }
        var best: RegistrySession?
        for token in holding {
            guard let session = sessions[token] else { continue }
            if best == nil || session.generation > best!.generation { best = session }
        }
        return best
    }

    /// The id of the reader's link here, if it has one.
    public func linkID(of reader: ReaderID) -> LinkID? { links[reader]?.id }

    /// The live status of the reader's link here, if it has one.
    public func linkStatus(of reader: ReaderID) -> LinkStatus? { links[reader]?.status }

    /// Commands relayed to readers here and not answered yet.
    public var pendingCommandCount: Int { links.values.reduce(0) { $0 + $1.pending.count } }

    /// Every reader this replica cares about: links here, readers its sessions own.
    public var readersOfInterest: [ReaderID] { Array(Set(links.keys).union(holders.keys)) }

    // MARK: shared transitions

    /// A field of the session at `index`, read in place. Read as a value,
    /// `sessions.values[index].field` goes through the subscript's getter, which copies the whole
    /// session (retaining and releasing each of its strings and sets) to read one field; an
    /// inout access reads it where it is.
    mutating func sessionField<T>(at index: Dictionary<String, RegistrySession>.Index, _ read: (inout RegistrySession) -> T) -> T {
        read(&sessions.values[index])
    }

    /// A field of the link at `index`, read in place (see ``sessionField(at:_:)``).
    mutating func linkField<T>(at index: Dictionary<ReaderID, RegistryLink>.Index, _ read: (inout RegistryLink) -> T) -> T {
        read(&links.values[index])
    }

    /// Sets the reader a session holds, keeping the index by reader.
    mutating func setReader(_ reader: ReaderID?, ofSessionAt token: String) {
        guard let index = sessions.index(forKey: token) else { return }
        setReader(reader, ofSessionAt: index, token: token)
    }

    /// ``setReader(_:ofSessionAt:)`` for the session at `index` (its token `token`): no
    /// second lookup, and the session is read and changed in place, never copied.
    mutating func setReader(_ reader: ReaderID?, ofSessionAt index: Dictionary<String, RegistrySession>.Index, token: String) {
        let old = sessionField(at: index) { $0.reader }
        sessions.values[index].reader = reader
        if let old, old != reader, let held = holders.index(forKey: old) {
            holders.values[held].remove(token)
            if holders.values[held].isEmpty { holders.remove(at: held) }
        }
        if let reader { holders[reader, default: []].insert(token) }
    }

    /// Records that a call of the session arrived on `connection`.
    /// The session is reached through its index, in place (one hash of the token on the relay path).
    mutating func attach(_ token: String, connection: UInt64, nowUnixMs: Int64?) {
        guard let index = sessions.index(forKey: token) else { return }
        attach(at: index, token: token, connection: connection, nowUnixMs: nowUnixMs)
    }

    /// ``attach(_:connection:nowUnixMs:)`` for the session at `index` (its token `token`),
    /// changed in place.
    mutating func attach(at index: Dictionary<String, RegistrySession>.Index, token: String, connection: UInt64, nowUnixMs: Int64?) {
        if sessions.values[index].connections.insert(connection).inserted {
            sessionsByConnection[connection, default: []].insert(token)
        }
        sessions.values[index].detachedSince = nil
        if let nowUnixMs { sessions.values[index].lastSeenUnixMs = nowUnixMs }
    }

    /// Forgets the session's connections in the index (the session leaves or is detached).
    mutating func unindexConnections(of token: String) {
        guard let connections = sessions[token]?.connections else { return }
        for connection in connections {
            sessionsByConnection[connection]?.remove(token)
            if sessionsByConnection[connection]?.isEmpty == true { sessionsByConnection[connection] = nil }
        }
    }

    /// Queues `event` for the session: an action to send it on its stream, or (no live
    /// stream) buffered, the oldest dropped past ``bufferedEventLimit``. Every event gets
    /// the session's next sequence number.
    mutating func deliver(_ event: SessionNotice.Event, toSessionAt token: String, nowUnixMs: Int64) -> RegistryAction? {
        guard let index = sessions.index(forKey: token) else { return nil }
        return deliver(event, toSessionAt: index, nowUnixMs: nowUnixMs)
    }

    /// ``deliver(_:toSessionAt:nowUnixMs:)`` for the session at `index`.
    mutating func deliver(_ event: SessionNotice.Event, toSessionAt index: Dictionary<String, RegistrySession>.Index, nowUnixMs: Int64) -> RegistryAction? {
        let message = SessionNotice(sequence: sessionField(at: index) { $0.nextSequence }, atUnixMs: nowUnixMs, event: event)
        sessions.values[index].nextSequence += 1
        if case .disconnected = event { sessions.values[index].lastLoss = message }
        if let stream = sessionField(at: index, { $0.stream }) { return .sendEvent(message, to: stream) }
        sessions.values[index].bufferedEvents.append(message)
        if sessions.values[index].bufferedEvents.count > Self.bufferedEventLimit { sessions.values[index].bufferedEvents.removeFirst() }
        return nil
    }
}
