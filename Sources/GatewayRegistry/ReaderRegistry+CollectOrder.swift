import GatewayDomain

/// One collect of a session, named from the moment its call arrives (on the lane
/// connection's loop, in the order the lane sent its calls) until it ends.
public struct CollectTicket: Hashable, Sendable, CustomStringConvertible {
    public var session: SessionID
    public var number: UInt64
    public var description: String { "\(session.rawValue)/collect-\(number)" }
}

/// Where a session's collect is on its way to the reader, so that a cancel sent after it
/// cancels it wherever it is: the gateway runs a collect in a task (it first marks the
/// reader in use in PostgreSQL), while a cancel is relayed at once from the connection's
/// loop, and would otherwise overtake the collect and reach a reader with nothing to cancel.
///
/// ```
///  arriving ──cancel──▶ cancelled ──(dispatch)──▶ the collect fails COMMAND_CANCELED, unsent
///     │ registered on the link
///     ▼
///  sending ──cancel──▶ sending with a deferred cancel ──(written)──▶ the cancel is sent after it
///     │ written to the link's call (or handed to another replica: `sent` at once)
///     ▼
///   sent ──cancel──▶ down the link as any command
/// ```
public struct CollectInFlight: Hashable, Sendable {
    public enum Phase: Hashable, Sendable {
        /// In the gateway, not yet on the reader's link.
        case arriving
        /// A cancel arrived before the collect reached the link: it ends without being sent.
        case cancelled
        /// Registered on the link here and being written to the link's call: a cancel
        /// arriving now is registered too and written right after the collect.
        case sending(CommandKey, deferredCancel: CommandKey?)
        /// Written to the link (or handed to the reader's replica): a cancel follows it there.
        case sent
    }

    public internal(set) var number: UInt64
    public internal(set) var phase: Phase
}

extension ReaderRegistry {
    /// Where a collect of a ticket goes when it reaches the link.
    public enum CollectDispatch: Hashable, Sendable {
        /// Registered on the link here: write it with this key's id, then report ``collectSent(_:)``.
        case registered(CommandKey)
        /// A cancel came first: the collect ends with COMMAND_CANCELED, unsent.
        case cancelled
        /// The reader has no link here.
        case noLink
    }

    /// A collect call of the session on `connection` arrived (before any of its work): its
    /// ticket, or nil when the session is not held here on that connection (it is adopted
    /// later, and a cancel that overtakes it finds nothing to order against).
    public mutating func collectArrived(_ token: String, connection: UInt64) -> CollectTicket? {
        guard let index = sessions.index(forKey: token), sessions.values[index].connections.contains(connection) else { return nil }
        let number = nextCollectNumber
        nextCollectNumber += 1
        sessions.values[index].collect = CollectInFlight(number: number, phase: .arriving)
        return CollectTicket(session: sessions.values[index].id, number: number)
    }

    /// The collect reaches the reader's link here: registered on it unless a cancel came first.
    public mutating func collectDispatched(_ ticket: CollectTicket, to reader: ReaderID, deadline: ContinuousClock.Instant) -> CollectDispatch {
        let phase = collectPhase(ticket)
        if phase == .cancelled { return .cancelled }
        guard let key = register(ticket.session, on: reader, ifCurrent: nil, isCollect: true, reboot: false, deadline: deadline) else { return .noLink }
        if phase != nil { setCollectPhase(ticket, .sending(key, deferredCancel: nil)) }
        return .registered(key)
    }

    /// The collect was written to its link's call: the cancel registered meanwhile, to write now.
    public mutating func collectSent(_ ticket: CollectTicket) -> CommandKey? {
        guard case .sending(_, let deferred)? = collectPhase(ticket) else { return nil }
        setCollectPhase(ticket, .sent)
        return deferred
    }

    /// The collect leaves for the replica holding the reader's link: false when a cancel came
    /// first (it ends with COMMAND_CANCELED, unsent). A later cancel follows it over the replica link.
    public mutating func collectLeaving(_ ticket: CollectTicket) -> Bool {
        let phase = collectPhase(ticket)
        if phase == .cancelled { return false }
        if phase != nil { setCollectPhase(ticket, .sent) }
        return true
    }

    /// The collect ended, however it ended.
    public mutating func collectEnded(_ ticket: CollectTicket) {
        guard collectPhase(ticket) != nil, let token = tokens[ticket.session] else { return }
        sessions[token]?.collect = nil
    }

    /// What a cancel of the session at `index` does to its collect, decided before the cancel
    /// is relayed: nil when it is relayed as any command (no collect, or one already sent).
    mutating func cancelMeetsCollect(
        at index: Dictionary<String, RegistrySession>.Index, _ owned: OwnedReader, deadline: ContinuousClock.Instant
    ) -> RelayDecision? {
        guard let collect = sessions.values[index].collect else { return nil }
        switch collect.phase {
        case .arriving, .cancelled:
            sessions.values[index].collect?.phase = .cancelled
            return .cancelledBeforeLink
        case .sending(let key, nil):
            guard let cancel = register(owned.session, on: owned.reader, ifCurrent: owned.generation, isCollect: false, reboot: false, deadline: deadline) else {
                return .stale(owned)
            }
            sessions.values[index].collect?.phase = .sending(key, deferredCancel: cancel)
            return .afterCollect(cancel, owned)
        case .sending(_, _?):
            // A cancel already waits to follow the collect: this one has nothing more to do.
            return .cancelledBeforeLink
        case .sent:
            return nil
        }
    }

    private func collectPhase(_ ticket: CollectTicket) -> CollectInFlight.Phase? {
        guard let collect = tokens[ticket.session].flatMap({ sessions[$0]?.collect }), collect.number == ticket.number else { return nil }
        return collect.phase
    }

    private mutating func setCollectPhase(_ ticket: CollectTicket, _ phase: CollectInFlight.Phase) {
        guard let token = tokens[ticket.session] else { return }
        sessions[token]?.collect?.phase = phase
    }
}
