/// How a granted connect relates to the previous owner.
public enum ConnectGrant: Hashable, Sendable {
    /// Nobody owned the reader.
    case connected
    /// The session took the reader from another session.
    case replaced(ReaderOwner)
    /// The session already owned the reader: not a takeover, nothing changes.
    case alreadyOwner
}

/// The decision on a connect request.
public enum ConnectResult: Hashable, Sendable {
    /// The session owns the reader at `generation`; run `actions`.
    case granted(ConnectGrant, generation: OwnershipGeneration, actions: [OwnershipAction])
    /// The connect fails; the current owner, if any, keeps the reader. Run `actions`
    /// (a busy refusal is recorded in the history).
    case refused(OwnershipRefusal, actions: [OwnershipAction])
}

/// The decision on a command an owner wants to start.
public enum CommandStartResult: Hashable, Sendable {
    /// Send the command to the reader.
    case proceed
    /// Fail the command with this reason; nothing changed.
    case refused(OwnershipRefusal)
}

/// The outcome of a command's completion.
public enum CommandFinishResult: Hashable, Sendable {
    /// The reader is no longer in use.
    case finished
    /// Nothing changed: the command was not the transaction in progress (no reason), or its
    /// session lost the reader meanwhile (the reason says how).
    case ignored(OwnershipRefusal?)
}

/// The outcome of an event that may end an ownership (disconnect, session expiry, admin
/// release).
public enum ReleaseResult: Hashable, Sendable {
    /// The reader has no owner any more at `generation`; run `actions`.
    case released(ReaderOwner, generation: OwnershipGeneration, actions: [OwnershipAction])
    /// Nothing about ownership changed (the reason says why, if there is one to give).
    case unchanged(OwnershipRefusal?)
    /// The request is refused (only a disconnect by a session that is not the owner).
    case refused(OwnershipRefusal)
}

/// The outcome of a change of the reader's own link (lost, attached).
public enum LinkEventResult: Hashable, Sendable {
    /// The link state changed; nobody owned the reader.
    case updated
    /// The link state changed and the owner lost the reader at `generation`; run `actions`.
    case ownerLost(ReaderOwner, generation: OwnershipGeneration, actions: [OwnershipAction])
    /// The event comes from an older link or repeats the current state: nothing changed.
    case ignoredStale
    /// No reader with this identity is registered.
    case unknownReader
}
