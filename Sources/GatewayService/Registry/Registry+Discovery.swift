import GatewayDomain
import GatewayRepositories
import GatewayRegistry

extension Registry {
    /// The session starts a discovery; the one it superseded, if it still waited for the
    /// store, ends with DISCOVERY_CANCELED. Nil: no such session.
    func discoveryStarted(_ token: String) -> DiscoveryStateMachine.StartResult? {
        let (started, superseded) = state.withLock { state -> (ReaderRegistry.DiscoveryStart?, DiscoveryAnswer?) in
            let started = state.machine.discoveryStarted(token, now: clock.now)
            return (started, started?.supersededWaiter == nil ? nil : state.discoveryAnswers.removeValue(forKey: token))
        }
        if let superseded, let id = started?.supersededWaiter, case .start(let newer, _)? = started?.result {
            superseded.resume(returning: .failure(.discoveryCanceled(id, supersededBy: newer)))
        }
        return started?.result
    }

    /// Files `answer` as discovery `id`'s waiter. False: superseded or cancelled before it
    /// could wait (`answer` is not kept).
    func discoveryWaiting(_ token: String, _ id: DiscoveryStateMachine.DiscoveryID, answer: DiscoveryAnswer) -> Bool {
        state.withLock { state in
            guard state.machine.discoveryWaiting(token, id) else { return false }
            state.discoveryAnswers[token] = answer
            return true
        }
    }

    /// The store answered discovery `id` (or failed: the discovery is abandoned); its waiter,
    /// if it still waits, gets `result`.
    func discoveryListed(_ token: String, _ id: DiscoveryStateMachine.DiscoveryID, _ result: Result<[ReaderRecord], ServiceError>) {
        let answer = state.withLock { state -> DiscoveryAnswer? in
            if case .failure = result { state.machine.discoveryFailed(token, id) }
            guard state.machine.takeDiscoveryWaiter(token, id) else { return nil }
            return state.discoveryAnswers.removeValue(forKey: token)
        }
        answer?.resume(returning: result)
    }

    /// Discovery `id` answers with `readers`: what became of it, and (for an answer) the live
    /// status of each reader's link here, in order; the caller builds the messages after the lock.
    func discoveryAnswered(
        _ token: String, _ id: DiscoveryStateMachine.DiscoveryID, readers: [ReaderID]
    ) -> (DiscoveryStateMachine.AnswerResult, [LinkStatus?])? {
        feed { registry in
            guard let result = registry.discoveryAnswered(token, id, readers: readers) else { return nil }
            return (result, result == .answer ? readers.map { registry.linkStatus(of: $0) } : [])
        }
    }

    /// CancelDiscovery: the discovery still waiting ends with DISCOVERY_CANCELED.
    func discoveryCancelled(_ token: String, named: DiscoveryStateMachine.DiscoveryID?) {
        let cancelled = state.withLock { state -> (DiscoveryStateMachine.DiscoveryID, DiscoveryAnswer)? in
            guard let id = state.machine.discoveryCancelled(token, named: named), let answer = state.discoveryAnswers.removeValue(forKey: token) else {
                return nil
            }
            return (id, answer)
        }
        if let (id, answer) = cancelled { answer.resume(returning: .failure(.discoveryCanceled(id, supersededBy: nil))) }
    }
}
