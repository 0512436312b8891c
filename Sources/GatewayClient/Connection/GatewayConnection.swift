import GatewayRPC
import GatewayTransport
import GatewayWire
import Synchronization

/// A reconnecting handle on the gateway: one ``ClientChannel`` at a time, replaced when it
/// closes or drains after GOAWAY.
///
/// Share one `GatewayConnection` between many ``TerminalClient``s to multiplex a store's
/// lanes over one TLS connection, or give each lane its own.
public final class GatewayConnection: Sendable {
    /// Where it connects.
    public let configuration: ClientChannelConfiguration
    let group: EventLoopGroup?
    /// The channel in use and the one connect running (``ChannelSlot``).
    private let slot: Mutex<ChannelSlot>

    public init(_ configuration: ClientChannelConfiguration, group: EventLoopGroup? = nil) {
        self.configuration = configuration
        self.group = group
        slot = Mutex(ChannelSlot(channel: nil))
    }

    /// Wraps an open channel; a replacement is connected with the same configuration.
    public init(channel: ClientChannel, group: EventLoopGroup? = nil) {
        self.configuration = channel.configuration
        self.group = group
        slot = Mutex(ChannelSlot(channel: channel))
    }

    /// Feeds one event to the slot under its lock and returns what it asks for; the
    /// connection acts on it (connects, resumes a waiter) after the lock is released.
    private func feed<Action: Sendable>(_ event: (inout ChannelSlot) -> Action) -> Action {
        slot.withLock { event(&$0) }
    }

    /// The current channel, connecting a new one if there is none or it stopped taking calls.
    public func channel() async throws -> ClientChannel {
        if let channel = currentChannel, channel.state.acceptsCalls { return channel }
        // One connect at a time: the callers behind it use the channel it made.
        await withCheckedContinuation { (turn: CheckedContinuation<Void, Never>) in
            if feed({ $0.connectTurnRequested(turn) }) { turn.resume() }
        }
        defer { feed { $0.connectTurnEnded() }?.resume() }
        if let channel = currentChannel, channel.state.acceptsCalls { return channel }
        let fresh = try await ClientChannel.connect(configuration, group: group)
        // The channel replaced is closed or draining: a draining channel finishes its calls
        // and then closes by itself, so it is never closed here (that would fail its calls
        // still in flight with a cancellation instead of their own outcome).
        feed { $0.connected(fresh) }
        return fresh
    }

    /// The channel in use now, if any (no connecting).
    public var currentChannel: ClientChannel? { feed { $0.channel } }

    /// Closes the current channel.
    public func close() {
        feed { $0.closing() }?.close()
    }

    /// Calls a unary method, retrying on a fresh channel when the call certainly was not
    /// processed (``RPCError/isRetryable``) or, for an `idempotent` method, on any UNAVAILABLE.
    ///
    /// - Parameter attempts: how many tries at most (backoff 100 ms, 200 ms, 400 ms, ...).
    public func unary<Request, Response>(
        _ method: ProtobufMethod<Request, Response>,
        _ request: Request,
        metadata: [ReaderGatewayV1.MetadataEntry] = [],
        timeout: Duration? = nil,
        idempotent: Bool = false,
        attempts: Int = 3
    ) async throws -> Response {
        var backoff = Duration.milliseconds(100)
        var attempt = 1
        while true {
            do {
                let channel = try await channel()
                return try await channel.unary(method, request, metadata: metadata, timeout: timeout)
            } catch let error as RPCError {
                let retry = error.isRetryable || (idempotent && error.isRetryableForIdempotentCall)
                guard retry, attempt < attempts, !Task.isCancelled else { throw error }
            }
            try? await Task.sleep(for: backoff)
            backoff *= 2
            attempt += 1
        }
    }
}

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
