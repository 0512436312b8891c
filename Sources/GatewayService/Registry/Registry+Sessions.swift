import GatewayDomain
import GatewayRegistry
import GatewayWire

extension Registry {
    /// A `SubscribeEvents` call of the session: buffered events go out first, the stream it
    /// replaces ends, and the stream is forgotten when the peer ends it. False: no such session.
    func subscribe(_ token: String, call: ServerCall, connection: UInt64) -> Bool {
        let subscribed = state.withLock { state -> (SessionEventStream, ReaderRegistry.Subscription, ServerCall?)? in
            guard let subscription = state.machine.sessionSubscribed(token, connection: connection),
                  let session = state.machine.sessions[token]?.id
            else { return nil }
            let stream = SessionEventStream(call: call, session: session, firstSequence: subscription.firstSequence)
            state.streams[subscription.stream] = stream
            let replaced = subscription.replaced.flatMap { state.streams.removeValue(forKey: $0)?.call }
            return (stream, subscription, replaced)
        }
        guard let (stream, subscription, replaced) = subscribed else { return false }
        for event in subscription.buffered { stream.send(event) }
        if let replaced, replaced !== call { replaced.end() }
        call.onCancel { [self] in
            state.withLock { state in
                state.machine.subscriptionEnded(token, stream: subscription.stream)
                state.streams[subscription.stream] = nil
            }
        }
        return true
    }

    /// Forgets a session: its event stream ends. Nil when it was not held.
    func sessionEnded(_ token: String) -> RegistrySession? {
        act { registry in
            guard let (session, actions) = registry.sessionEnded(token) else { return (nil, []) }
            return (session, actions)
        }
    }
}
