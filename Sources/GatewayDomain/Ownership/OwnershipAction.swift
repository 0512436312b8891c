/// The session holding a reader and the lane it speaks for.
public struct ReaderOwner: Hashable, Sendable {
    public var session: SessionID
    public var lane: LaneLabel

    public init(session: SessionID, lane: LaneLabel) {
        self.session = session
        self.lane = lane
    }
}

/// One row to append to a reader's ownership history.
public struct OwnershipHistoryEvent: Hashable, Sendable {
    public var reader: ReaderID
    /// The owner before the event (for a refusal: the owner that kept the reader).
    public var from: ReaderOwner?
    /// The owner after the event (for a refusal: the session that was refused).
    public var to: ReaderOwner?
    /// The generation after the event (for a refusal: the unchanged current generation).
    public var generation: OwnershipGeneration
    public var reason: OwnershipHistoryReason

    public init(
        reader: ReaderID,
        from: ReaderOwner?,
        to: ReaderOwner?,
        generation: OwnershipGeneration,
        reason: OwnershipHistoryReason
    ) {
        self.reader = reader
        self.from = from
        self.to = to
        self.generation = generation
        self.reason = reason
    }
}

/// Something the I/O shell must do after the state machine decided.
public enum OwnershipAction: Hashable, Sendable {
    /// Tell a session it no longer owns the reader (its `didDisconnect`), why, and which lane
    /// took the reader when another session did.
    case notifyDisplaced(session: SessionID, reason: DisplacementReason, takenBy: LaneLabel?)
    /// Fail the next command of a session that lost the reader with this refusal.
    case failNextCommand(session: SessionID, refusal: OwnershipRefusal)
    /// A transaction command was interrupted by the change of owner: cancel it on the reader
    /// and fail it towards the session that started it.
    case cancelCommand(CommandInProgress)
    /// Append a row to the ownership history.
    case recordHistory(OwnershipHistoryEvent)
}
