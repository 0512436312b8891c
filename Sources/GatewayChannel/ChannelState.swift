/// Where a ``ClientChannel`` is in its life.
public enum ChannelState: Sendable, Hashable {
    /// TCP connect and TLS handshake in progress.
    case connecting
    /// Calls may start.
    case ready
    /// The server sent GOAWAY: calls in flight finish, new calls fail with a retryable
    /// `UNAVAILABLE` / `GOING_AWAY`; open a new channel for them.
    case draining(RPCError)
    /// The connection is gone; every call ended with this error.
    case closed(RPCError)

    /// Whether new calls can start.
    public var acceptsCalls: Bool { self == .ready }

    /// Whether the channel is finished.
    public var isClosed: Bool {
        if case .closed = self { return true }
        return false
    }
}
