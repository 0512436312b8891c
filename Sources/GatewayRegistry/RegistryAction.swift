import GatewayDomain
import GatewayWire

/// Why the registry ended a relayed command before the reader answered.
public enum CommandFailure: Hashable, Sendable {
    /// An ownership rule refused it (the reader was taken, went offline, …).
    case refusal(OwnershipRefusal)
    /// The reader attached again (a new link) while the command ran.
    case readerReattached
    /// The reader attached again on another replica while the command ran.
    case linkMovedAway
    /// This replica was fenced off while the command ran.
    case replicaFenced
    /// The reader did not answer before the command's deadline.
    case timedOut
}

/// Why the registry closes a reader link.
public enum LinkClosure: Hashable, Sendable {
    /// A newer link of the same reader (here or on another replica) replaced it.
    case replaced
    /// No heartbeat within the offline bound.
    case silent
    /// This replica was fenced off.
    case replicaFenced
}

/// Something the I/O shell must do after the registry decided. The shell performs the
/// actions in order, outside its lock, resolving ids to its calls and completions.
public enum RegistryAction: Equatable, Sendable {
    /// Send `event` on a session's event stream (its sequence number is set; a stream
    /// delivers in sequence order).
    case sendEvent(SessionNotice, to: EventStreamID)
    /// Hand a relayed command its failure (the completion is called once).
    case failCommand(CommandKey, CommandFailure)
    /// Send `cancelCollect` down the link: a collect it ran was interrupted by a change of owner.
    case cancelOnReader(LinkID)
    /// Tell the reader on the link which lane owns it now (empty: nobody) and at which generation.
    case tellOwner(LinkID, lane: String, generation: OwnershipGeneration)
    /// End a link's Attach call (the registry already forgot the link).
    case closeLink(LinkID, LinkClosure)
    /// End a session's event stream (the registry already forgot it), saying why.
    case endStream(EventStreamID, StreamEnding)
}

/// Why a session's event stream ends.
public enum StreamEnding: Hashable, Sendable {
    /// The session is over (closed, or its lease ran out): the stream ends cleanly.
    case sessionEnded
    /// This replica was fenced off: resume the session with its resume token.
    case replicaFenced
    /// The session was resumed elsewhere (a newer epoch of its row): this copy is gone.
    case sessionMoved
}
