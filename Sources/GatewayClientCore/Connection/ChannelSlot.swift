import GatewayChannel

/// The channel a ``GatewayConnection`` uses, and its connects taken one at a time, as a
/// value: a caller that finds no usable channel asks for the connect turn; the one holding it
/// connects (or finds that the caller before it did), then passes the turn on.
struct ChannelSlot: Sendable {
    /// The channel in use (closed or draining ones are replaced by the next connect).
    private(set) var channel: ClientChannel?
    /// A caller holds the connect turn.
    private(set) var connecting = false
    /// Callers waiting for the connect turn, in order.
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(channel: ClientChannel?) {
        self.channel = channel
    }

    /// A caller asks for the connect turn: true when it has it now; else `turn` is resumed
    /// when the turn passes to it.
    mutating func connectTurnRequested(_ turn: CheckedContinuation<Void, Never>) -> Bool {
        guard connecting else {
            connecting = true
            return true
        }
        waiting.append(turn)
        return false
    }

    /// The caller holding the connect turn is done: the next caller to resume, if any (the
    /// turn is theirs).
    mutating func connectTurnEnded() -> CheckedContinuation<Void, Never>? {
        guard !waiting.isEmpty else {
            connecting = false
            return nil
        }
        return waiting.removeFirst()
    }

    /// A connect made `fresh`: it replaces the channel in use.
    mutating func connected(_ fresh: ClientChannel) {
        channel = fresh
    }

    /// The app closes the connection: the channel to close.
    mutating func closing() -> ClientChannel? {
        defer { channel = nil }
        return channel
    }
}
