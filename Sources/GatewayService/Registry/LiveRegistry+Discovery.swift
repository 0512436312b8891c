import GatewayDomain
import GatewayRepositories
import GatewayRegistry

extension LiveRegistry {
    /// The session starts a discovery; the one it superseded, if it still waited for the
    /// store, ends with DISCOVERY_CANCELED. Nil: no such session.
    func discoveryStarted(_ token: String) -> DiscoveryStateMachine.StartResult? {
        guard case .discoveryStart(let result) = handle(.discoveryStarted(token, now: clock.now)) else { return nil }
        return result
    }

    /// Files `answer` as discovery `id`'s waiter. False: superseded or cancelled before it
    /// could wait (`answer` is not kept).
    func discoveryWaiting(_ token: String, _ id: DiscoveryStateMachine.DiscoveryID, answer: DiscoveryAnswer) -> Bool {
        guard case .flag(let waiting) = handle(.discoveryWaiting(token, id, answer: answer)) else { return false }
        return waiting
    }

    /// The store answered discovery `id` (or failed: the discovery is abandoned); its waiter,
    /// if it still waits, gets `result`.
    func discoveryListed(_ token: String, _ id: DiscoveryStateMachine.DiscoveryID, _ result: Result<[ReaderRecord], ServiceError>) {
        handle(.discoveryListed(token, id, result))
    }

    /// Discovery `id` answers with `readers`: what became of it, and (for an answer) the live
    /// status of each reader's link here, in order; the caller builds the messages after the lock.
    func discoveryAnswered(
        _ token: String, _ id: DiscoveryStateMachine.DiscoveryID, readers: [ReaderID]
    ) -> (DiscoveryStateMachine.AnswerResult, [LinkStatus?])? {
        guard case .discoveryAnswer(let answered) = handle(.discoveryAnswered(token, id, readers: readers)) else { return nil }
        return answered
    }

    /// CancelDiscovery: the discovery still waiting ends with DISCOVERY_CANCELED.
    func discoveryCancelled(_ token: String, named: DiscoveryStateMachine.DiscoveryID?) {
        handle(.discoveryCancelled(token, named: named))
    }
}
