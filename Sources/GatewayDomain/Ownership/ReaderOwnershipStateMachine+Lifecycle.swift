extension ReaderOwnershipStateMachine {
    /// The owner disconnects (Stripe Terminal's `disconnectReader`); fenced by its generation.
    public mutating func disconnect(session: SessionID, generation claimed: OwnershipGeneration) -> ReleaseResult {
        if let refusal = fence(session: session, generation: claimed) { return .refused(refusal) }
        return endOwnership(reason: .released, displacement: nil, notifyOwner: false)
    }

    /// A session's lease ran out: it loses the reader if it owns it.
    public mutating func sessionExpired(_ session: SessionID) -> ReleaseResult {
        guard owner?.session == session else { return .unchanged(nil) }
        return endOwnership(reason: .sessionExpired, displacement: .sessionExpired, notifyOwner: true)
    }

    /// A fleet admin releases the reader from whichever session holds it.
    public mutating func adminRelease() -> ReleaseResult {
        if case .unknown = link { return .unchanged(.unknownReader) }
        guard owner != nil else { return .unchanged(.notConnected) }
        return endOwnership(reason: .adminReleased, displacement: .adminReleased, notifyOwner: true)
    }

    /// The reader's link with `epoch` went down: the reader is offline and its owner loses it.
    public mutating func readerLost(epoch: LinkEpoch) -> LinkEventResult {
        switch link {
        case .unknown:
            return .unknownReader
        case .offline:
            return .ignoredStale
        case .online(let current):
            guard epoch == current else { return .ignoredStale }
            link = .offline(current)
            return linkResult(endOwnership(reason: .readerLost, displacement: .readerOffline, notifyOwner: true))
        }
    }

    /// The reader attached a new link with `epoch`.
    ///
    /// The reader is online at the new epoch and **keeps its owner** (and the owner's
    /// transaction mark, which the owner's relay clears when the command it sent over the old
    /// link fails): a re-attach means the old link died with its replica, was drained, or is a
    /// duplicate, never that the owner gave the reader up. Only ``readerLost(epoch:)`` (the
    /// link ended on a live replica) or an offline bound passing after a detach end the
    /// ownership. From offline the reader comes back with no owner. An epoch not newer than
    /// the current one is stale.
    public mutating func readerAttached(epoch: LinkEpoch) -> LinkEventResult {
        switch link {
        case .unknown:
            return .unknownReader
        case .offline(let current), .online(let current):
            guard epoch > current else { return .ignoredStale }
            link = .online(epoch)
            return .updated
        }
    }

    private func linkResult(_ release: ReleaseResult) -> LinkEventResult {
        switch release {
        case .released(let owner, let generation, let actions):
            .ownerLost(owner, generation: generation, actions: actions)
        case .unchanged, .refused:
            .updated
        }
    }
}
