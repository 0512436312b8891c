/// A session's request to connect to a reader (Stripe Terminal's `connectReader`).
public struct ConnectRequest: Hashable, Sendable {
    public var session: SessionID
    public var lane: LaneLabel
    /// When true, refuse instead of taking a reader that is mid-transaction for another session.
    public var failIfInUse: Bool
    /// The discovery the connect's reader object came from.
    public var readerDiscovery: DiscoveryStateMachine.DiscoveryID
    /// The session's most recent discovery (``DiscoveryStateMachine/latest``).
    public var latestDiscovery: DiscoveryStateMachine.DiscoveryID

    public init(
        session: SessionID,
        lane: LaneLabel,
        failIfInUse: Bool = false,
        readerDiscovery: DiscoveryStateMachine.DiscoveryID = .init(0),
        latestDiscovery: DiscoveryStateMachine.DiscoveryID = .init(0)
    ) {
        self.session = session
        self.lane = lane
        self.failIfInUse = failIfInUse
        self.readerDiscovery = readerDiscovery
        self.latestDiscovery = latestDiscovery
    }
}

extension ReaderOwnershipStateMachine {
    /// Decides a connect request.
    public mutating func connect(_ request: ConnectRequest) -> ConnectResult {
        guard case .online = link else {
            if case .unknown = link { return .refused(.unknownReader, actions: []) }
            if request.readerDiscovery < request.latestDiscovery { return .refused(.staleDiscovery, actions: []) }
            return .refused(.readerOffline, actions: [])
        }
        if request.readerDiscovery < request.latestDiscovery {
            return .refused(.staleDiscovery, actions: [])
        }
        let incoming = ReaderOwner(session: request.session, lane: request.lane)
        if let current = owner, current.session == request.session {
            // Connecting again to the reader it owns: not a takeover, the command (if any) goes on.
            return .granted(.alreadyOwner, generation: generation, actions: [])
        }
        if request.failIfInUse && isInUse(for: request.session) {
            let event = OwnershipHistoryEvent(
                reader: reader,
                from: owner,
                to: incoming,
                generation: generation,
                reason: .refusedBusy
            )
            return .refused(.readerBusy, actions: [.recordHistory(event)])
        }
        let previous = owner
        generation = generation.next
        owner = incoming
        var actions: [OwnershipAction] = []
        if let command = commandInProgress {
            actions.append(.cancelCommand(command))
            commandInProgress = nil
        }
        if let previous {
            actions.append(
                .notifyDisplaced(session: previous.session, reason: .connectedToAnotherSession, takenBy: request.lane)
            )
            actions.append(.failNextCommand(session: previous.session, refusal: .connectedToAnotherSession))
        }
        let event = OwnershipHistoryEvent(
            reader: reader,
            from: previous,
            to: incoming,
            generation: generation,
            reason: previous == nil ? .connected : .replaced
        )
        actions.append(.recordHistory(event))
        return .granted(previous.map { .replaced($0) } ?? .connected, generation: generation, actions: actions)
    }
}
