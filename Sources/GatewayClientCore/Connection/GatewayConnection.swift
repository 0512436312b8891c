import GatewayChannel
import GatewayWire
import Synchronization

/// A reconnecting handle on the gateway: one ``ClientChannel`` at a time, replaced when it
/// closes or drains after GOAWAY.
///
/// Share one `GatewayConnection` between many ``TerminalClient``s to multiplex a store's
/// lanes over one connection, or give each lane its own.
public final class GatewayConnection: Sendable {
    /// Where it connects.
    public let configuration: ClientChannelConfiguration
    /// What opens its channels (`LinuxTLSTransport` by default on Linux, through `import GatewayClient`).
    public let transport: any ClientTransport
    /// The channel in use and the one connect running (``ChannelSlot``).
    private let slot: Mutex<ChannelSlot>

    /// Connects to `configuration`'s gateway over `transport` when a call first needs a channel.
    public init(_ configuration: ClientChannelConfiguration, transport: any ClientTransport) {
        self.configuration = configuration
        self.transport = transport
        slot = Mutex(ChannelSlot(channel: nil))
    }

    /// Wraps an open channel; a replacement is connected with the same configuration over `transport`.
    public init(channel: ClientChannel, transport: any ClientTransport) {
        self.configuration = channel.configuration
        self.transport = transport
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
        let fresh = try await ClientChannel.connect(configuration, over: transport)
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
