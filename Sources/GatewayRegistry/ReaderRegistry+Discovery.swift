import GatewayDomain

extension ReaderRegistry {
    /// A discovery that started, and the waiter of the one it superseded.
    public struct DiscoveryStart: Hashable, Sendable {
        public var result: DiscoveryStateMachine.StartResult
        /// The superseded discovery still waited for the store: end its call with
        /// DISCOVERY_CANCELED (its waiter is taken).
        public var supersededWaiter: DiscoveryStateMachine.DiscoveryID?
    }

    /// The session starts a discovery at `now` (rate limited). Nil: no such session.
    public mutating func discoveryStarted(_ token: String, now: ContinuousClock.Instant) -> DiscoveryStart? {
        guard sessions[token] != nil else { return nil }
        let result = sessions[token]!.discovery.startDiscovery(at: now)
        guard case .start(_, let previous?) = result else { return DiscoveryStart(result: result, supersededWaiter: nil) }
        return DiscoveryStart(result: result, supersededWaiter: takeDiscoveryWaiter(token, previous) ? previous : nil)
    }

    /// Discovery `id` waits for the store's readers. False when it was superseded or
    /// cancelled before it could wait (nothing to wait for).
    public mutating func discoveryWaiting(_ token: String, _ id: DiscoveryStateMachine.DiscoveryID) -> Bool {
        guard sessions[token]?.discovery.state == .running(id) else { return false }
        discoveryWaiters[token] = id
        return true
    }

    /// Removes the waiter of discovery `id` of the session, if it still waits. True when it did.
    public mutating func takeDiscoveryWaiter(_ token: String, _ id: DiscoveryStateMachine.DiscoveryID) -> Bool {
        guard discoveryWaiters[token] == id else { return false }
        discoveryWaiters[token] = nil
        return true
    }

    /// The store could not list the readers: the discovery is abandoned.
    public mutating func discoveryFailed(_ token: String, _ id: DiscoveryStateMachine.DiscoveryID) {
        guard sessions[token] != nil else { return }
        sessions[token]!.discovery.abandon(id)
    }

    /// The store listed `readers` for discovery `id`: the answer, or why it is not one.
    /// Nil: no such session.
    public mutating func discoveryAnswered(
        _ token: String, _ id: DiscoveryStateMachine.DiscoveryID, readers: [ReaderID]
    ) -> DiscoveryStateMachine.AnswerResult? {
        guard sessions[token] != nil else { return nil }
        let result = sessions[token]!.discovery.answerReady(id)
        if result == .answer { sessions[token]!.discovered = Set(readers.map(\.rawValue)) }
        return result
    }

    /// CancelDiscovery (of `named`, or whatever runs): the discovery whose waiter must end
    /// with DISCOVERY_CANCELED (its waiter is taken), if one was waiting.
    public mutating func discoveryCancelled(_ token: String, named: DiscoveryStateMachine.DiscoveryID?) -> DiscoveryStateMachine.DiscoveryID? {
        guard case .cancelled(let id)? = sessions[token]?.discovery.cancelDiscovery(named) else { return nil }
        return takeDiscoveryWaiter(token, id) ? id : nil
    }
}
